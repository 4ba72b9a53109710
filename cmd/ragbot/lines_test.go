package main

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// The public repository of TestCitedLinesExact: weaviate's configuration
// package, whose FromEnv (usecases/config/environment.go) is a function of
// 1,433 lines that reads 131 environment variables with os.Getenv or
// os.LookupEnv and names 191 in its string literals. The module's go.sum
// hash pins its content.
const (
	linesModule    = "github.com/weaviate/weaviate"
	linesVersion   = "v1.39.2"
	linesModuleSum = "h1:036gj+U4UsYzXb0oTrDLwmMa5zejMZ8Op3chTBgNmTA="
	linesDir       = "usecases/config"
	linesFile      = "usecases/config/environment.go"
	linesFunc      = "FromEnv"
)

// linesQuestions are ordinary questions about ragbot's own code, answered
// with whole or focused snippets rather than usage lists.
var linesQuestions = []string{
	"where is Store.Upsert defined?",
	"where is the retry for 503 errors?",
	"how are long symbols split into windows?",
	"where is FocusSnippet defined?",
	"where is the Slack request signature checked?",
	"how does the answer decide there is no coverage?",
	"where are secrets redacted before indexing?",
	"what does guardSnippet do when a file changed since it was indexed?",
	"who calls NewSnippet",
	"who calls chunkSites?",
	"where is keyLike used",
}

// TestCitedLinesExact is a property test over real repositories: a clone
// of this repository's HEAD and weaviate's configuration package (from the
// Go module proxy; the test is skipped when that fetch fails), indexed into
// a real Weaviate and asked through the app's own pipeline. For every
// snippet of every answer, the lines shown are the file's lines at the
// cited range and commit (less the header of a split symbol's later
// window and the "... lines X-Y not shown ..." lines of a focused one),
// and every usage site's line holds the name asked. The questions are
// linesQuestions, "where is X read?" for every environment variable that
// ragbot's Go code reads (found with a regular expression, not by ragbot),
// and the same, as typed and in lower case, for every variable named in
// weaviate's FromEnv, where every line of FromEnv that names it (found
// with go/parser) must be cited as its own site.
func TestCitedLinesExact(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes this repository and a public one: not with -short")
	}
	self := cloneSelf(t)
	wv := moduleRepo(t, linesModule, linesVersion, linesModuleSum, linesDir)
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
embedder: {kind: offline, semantic: {kind: none}}
sources:
  - {name: ragbot, kind: git, path: %s, branches: [main], link_template: "https://git.example.com/ragbot/blob/{commit}/{path}#L{start}-L{end}"}
  - {name: weaviate, kind: git, path: %s, branches: [main], link_template: "https://git.example.com/weaviate/blob/{commit}/{path}#L{start}-L{end}"}
`, weaviatetest.URL(t), weaviatetest.ClassName(), self, wv)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropCollection(t, cfg) })
	if code, _, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	a, err := openApp(context.Background(), commonFlags{config: cfg}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	asker, _ := a.pipeline(context.Background())
	files := fileCache{dirs: map[string]string{"repo:ragbot": self, "repo:weaviate": wv}, text: map[string][]string{}}
	ask := func(source, q string) retrieval.Answer {
		t.Helper()
		ans, err := asker.Ask(context.Background(), retrieval.Request{Question: q, Sources: []string{source}})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		for _, p := range files.check(t, ans) {
			t.Errorf("%q: %s", q, p)
		}
		return ans
	}

	snippets := 0
	for _, q := range linesQuestions {
		snippets += len(ask("repo:ragbot", q).Snippets)
	}
	for _, name := range envReads(t, self) {
		snippets += len(ask("repo:ragbot", "where is "+name+" read?").Snippets)
	}

	names, want := literalLines(t, filepath.Join(wv, linesFile), linesFunc)
	if len(names) < 100 {
		t.Fatalf("%s names %d environment variables, want over 100", linesFunc, len(names))
	}
	sites, wrong := 0, 0
	for _, name := range names {
		for _, q := range []string{"where is " + name + " read?", "where is " + strings.ToLower(name) + " read"} {
			ans := ask("repo:weaviate", q)
			snippets += len(ans.Snippets)
			if ans.Usage == nil {
				t.Errorf("%q: not answered as a usage question", q)
				continue
			}
			var cited []int
			for _, s := range ans.Snippets[ans.Usage.Definitions:] {
				if s.Path == linesFile && s.StartLine >= want.from && s.EndLine <= want.to {
					cited = append(cited, s.StartLine)
				}
			}
			for _, n := range want.lines[name] {
				sites++
				if !slices.Contains(cited, n) {
					wrong++
					t.Errorf("%q: %s:%d (%s) is not cited; cited in %s: %v", q, linesFile, n, strings.TrimSpace(files.line(t, "repo:weaviate", ans, n)), linesFunc, cited)
				}
			}
			for _, n := range cited {
				if !slices.Contains(want.lines[name], n) {
					t.Errorf("%q: %s:%d is cited, but that line of %s does not name %s", q, linesFile, n, linesFunc, name)
				}
			}
		}
	}
	t.Logf("%d snippets checked; %s %s (lines %d-%d): %d variables, %d sites asked (as typed and in lower case), %d not cited at their own line",
		snippets, linesFile, linesFunc, want.from, want.to, len(names), sites, wrong)
}

// cloneSelf clones the HEAD of the repository this test runs in into a
// temp dir, on branch main.
func cloneSelf(t *testing.T) string {
	t.Helper()
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("this test clones the repository it runs in: git rev-parse: %v", err)
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ragbot")
	runGit(t, filepath.Dir(dir), "clone", "-q", "--no-checkout", strings.TrimSpace(string(top)), dir)
	runGit(t, dir, "checkout", "-q", "-B", "main", strings.TrimSpace(string(head)))
	return dir
}

// moduleRepo downloads module@version with `go mod download -json` (into
// the module cache, outside any module), checks its go.sum hash, and
// returns a temp git repository of one commit holding the files of its
// folder dir (not its subfolders) at the same paths. The test is skipped
// when the download fails.
func moduleRepo(t *testing.T, module, version, sum, dir string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GO111MODULE=on", "GOFLAGS=-modcacherw")
	out, err := cmd.Output()
	var m struct{ Dir, Sum, Error string }
	if jerr := json.Unmarshal(out, &m); err != nil || jerr != nil || m.Error != "" {
		t.Skipf("cannot fetch %s@%s from the module proxy, so the public repository is not checked: %v %s", module, version, err, m.Error)
	}
	if m.Sum != sum {
		t.Fatalf("%s@%s: go.sum hash %s, want %s", module, version, m.Sum, sum)
	}
	files := map[string]string{}
	entries, err := os.ReadDir(filepath.Join(m.Dir, dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(m.Dir, dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[dir+"/"+e.Name()] = string(b)
		}
	}
	repo, _ := gitRepo(t, files)
	return repo
}

// envReadRe is a Go read of an environment variable by a literal name.
var envReadRe = regexp.MustCompile(`os\.(?:Getenv|LookupEnv)\("([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"\)`)

// envReads are the environment variables the Go files of the repository
// in dir read by a literal name.
func envReads(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	for _, p := range strings.Fields(runGit(t, dir, "ls-files", "*.go")) {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range envReadRe.FindAllStringSubmatch(string(b), -1) {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
	}
	slices.Sort(names)
	return names
}

// funcLines are the lines of one function and, per environment variable
// named in its string literals, the lines that name it.
type funcLines struct {
	from, to int
	lines    map[string][]int
}

// envNameRe is an environment variable's name as a word.
var envNameRe = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)

// literalLines parses the Go file at path and returns, for the function
// fn, the environment variable names its string literals hold (as a whole
// literal, or as a word of one: "parse X as duration") and the lines of
// each, ascending; names sorted.
func literalLines(t *testing.T, path, fn string) ([]string, funcLines) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	fl := funcLines{lines: map[string][]int{}}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn || fd.Recv != nil {
			continue
		}
		fl.from, fl.to = fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || strings.Contains(s, "\n") {
				return true
			}
			line := fset.Position(lit.Pos()).Line
			for _, name := range envNameRe.FindAllString(s, -1) {
				if !slices.Contains(fl.lines[name], line) {
					fl.lines[name] = append(fl.lines[name], line)
				}
			}
			return true
		})
	}
	if fl.from == 0 {
		t.Fatalf("%s: no function %s", path, fn)
	}
	var names []string
	for name, ls := range fl.lines {
		slices.Sort(ls)
		names = append(names, name)
	}
	slices.Sort(names)
	return names, fl
}

// fileCache reads the files cited, at their commit, from the sources'
// repositories (source id -> dir).
type fileCache struct {
	dirs map[string]string
	text map[string][]string // "dir|commit:path" -> lines
}

// lines returns the lines of path at commit in the source's repository.
func (fc fileCache) lines(t *testing.T, source, commit, path string) []string {
	t.Helper()
	key := fc.dirs[source] + "|" + commit + ":" + path
	if ls, ok := fc.text[key]; ok {
		return ls
	}
	out, err := exec.Command("git", "-C", fc.dirs[source], "show", commit+":"+path).Output()
	if err != nil {
		t.Fatalf("git show %s:%s in %s: %v", commit, path, source, err)
	}
	ls := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	for i, l := range ls { // as the chunkers read them: no CR, valid UTF-8
		ls[i] = strings.ToValidUTF8(strings.TrimSuffix(l, "\r"), "\uFFFD")
	}
	fc.text[key] = ls
	return ls
}

// line is line n of the file linesFile at the commit of ans's snippets.
func (fc fileCache) line(t *testing.T, source string, ans retrieval.Answer, n int) string {
	t.Helper()
	for _, s := range ans.Snippets {
		if s.CommitSHA != "" {
			if ls := fc.lines(t, source, s.CommitSHA, linesFile); n <= len(ls) {
				return ls[n-1]
			}
		}
	}
	return ""
}

// elidedRe is FocusSnippet's line for file lines left out.
var elidedRe = regexp.MustCompile(`^\.\.\. lines? (\d+)(?:-(\d+))? not shown \.\.\.$`)

// check returns what is wrong with the lines of ans's snippets of git
// sources: a usage site's text must be its cited line, trimmed, holding
// the name; any other snippet's text, below a header of at most 4 lines
// (a split symbol's signature and "..."), must be the file's lines from
// StartLine on, each "... lines X-Y not shown ..." line standing for
// exactly the lines it names, ShownStart..ShownEnd being within the lines
// after the last such line and ending with them, and MoreLines lines (or blank ones) after the last
// shown before EndLine.
func (fc fileCache) check(t *testing.T, ans retrieval.Answer) []string {
	t.Helper()
	var bad []string
	for i, s := range ans.Snippets {
		if s.CommitSHA == "" || s.Kind == retrieval.KindAPI {
			continue
		}
		file := fc.lines(t, s.Source, s.CommitSHA, s.Path)
		if s.StartLine < 1 || s.EndLine > len(file) || s.EndLine < s.StartLine {
			bad = append(bad, fmt.Sprintf("%s:%s: outside the file's %d lines", s.Path, s.Lines(), len(file)))
			continue
		}
		if ans.Usage != nil && i >= ans.Usage.Definitions {
			got := strings.TrimSpace(file[s.StartLine-1])
			if s.StartLine != s.EndLine || s.Text != got {
				bad = append(bad, fmt.Sprintf("site %s:%s shows %q, the line is %q", s.Path, s.Lines(), s.Text, got))
			}
			if !strings.Contains(strings.ToLower(got), strings.ToLower(retrieval.Unqualified(ans.Usage.Name))) &&
				!strings.Contains(strings.ToLower(got), strings.ToLower(lastWord(ans.Usage.Name))) {
				bad = append(bad, fmt.Sprintf("site %s:%d %q does not hold %s", s.Path, s.StartLine, got, ans.Usage.Name))
			}
			continue
		}
		if p := checkText(file, s); p != "" {
			bad = append(bad, fmt.Sprintf("%s:%s %s: %s", s.Path, s.Lines(), s.Symbol, p))
		}
	}
	return bad
}

// lastWord is a qualified name's last part ("Upsert" of "Store.Upsert").
func lastWord(s string) string {
	if i := strings.LastIndexAny(s, ".:#"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// checkText is check for one snippet that is no usage site: "" when its
// text is the file's lines as described there.
func checkText(file []string, s retrieval.Snippet) string {
	text := strings.Split(s.Text, "\n")
	start := -1 // index in text of the first line from StartLine on
	for h := 0; h <= 4 && h < len(text); h++ {
		if m := elidedRe.FindStringSubmatch(text[h]); text[h] == file[s.StartLine-1] || m != nil && m[1] == strconv.Itoa(s.StartLine) {
			start = h
			break
		}
	}
	if start < 0 {
		return fmt.Sprintf("no line of the text's top is line %d %q:\n%s", s.StartLine, file[s.StartLine-1], s.Text)
	}
	next, lastElided := s.StartLine, start // next file line expected; text index after the last elided line
	for i, l := range text[start:] {
		if m := elidedRe.FindStringSubmatch(l); m != nil {
			from, _ := strconv.Atoi(m[1])
			to := from
			if m[2] != "" {
				to, _ = strconv.Atoi(m[2])
			}
			if from != next || to < from {
				return fmt.Sprintf("%q after line %d", l, next-1)
			}
			next, lastElided = to+1, start+i+1
			continue
		}
		if next > s.EndLine || l != file[next-1] && !strings.Contains(l, "[redacted: ") {
			return fmt.Sprintf("text line %d %q is not line %d %q", start+i+1, l, next, file[min(next, len(file))-1])
		}
		next++
	}
	if s.ShownStart > 0 { // the last run of lines shown, which may follow kept lines without a gap
		if run := next - (len(text) - lastElided); s.ShownEnd != next-1 || s.ShownStart < run || s.ShownStart > s.ShownEnd {
			return fmt.Sprintf("shown %d-%d, but the text's last run is lines %d-%d", s.ShownStart, s.ShownEnd, run, next-1)
		}
	}
	last := next - 1 + s.MoreLines
	if last > s.EndLine {
		return fmt.Sprintf("%d lines shown and %d more run past line %d", next-s.StartLine, s.MoreLines, s.EndLine)
	}
	for n := last + 1; n <= s.EndLine; n++ {
		if strings.TrimSpace(file[n-1]) != "" {
			return fmt.Sprintf("line %d %q is neither shown nor counted in %d more lines", n, file[n-1], s.MoreLines)
		}
	}
	return ""
}
