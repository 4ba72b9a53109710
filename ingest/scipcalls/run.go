package scipcalls

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ragbot/ragbot/ingest/gocalls"
)

// lock is the npm lock file that pins the indexers; scripts/install-scip.sh
// installs them under Dir()/<its sha256>.
//
//go:embed npm/package-lock.json
var lock []byte

// Timeout caps one indexer's run on one commit.
const Timeout = 15 * time.Minute

// Dir is the folder that scripts/install-scip.sh installs the pinned
// indexers into: $RAGBOT_SCIP_DIR, else $XDG_CACHE_HOME/ragbot/scip, else
// ~/.cache/ragbot/scip, then the hex sha256 of npm/package-lock.json.
// The commands are Dir()/node_modules/.bin/scip-python and scip-typescript.
func Dir() string {
	base := os.Getenv("RAGBOT_SCIP_DIR")
	if base == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		base = filepath.Join(cache, "ragbot", "scip")
	}
	sum := sha256.Sum256(lock)
	return filepath.Join(base, hex.EncodeToString(sum[:]))
}

// Installed reports whether both indexers are installed in dir (a Dir), and
// if not, why, in a sentence that says how to install them.
func Installed(dir string) error {
	for _, tool := range []string{Python, TypeScript} {
		if err := installed(dir, tool); err != nil {
			return err
		}
	}
	return nil
}

// installed is Installed for one tool.
func installed(dir, tool string) error {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", tool)); err != nil {
		return fmt.Errorf("%s not installed in %s: run scripts/install-scip.sh", tool, dir)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return errors.New("node not found on PATH: the SCIP indexers run on Node 18+")
	}
	return nil
}

// Options say where the indexers are. The zero value uses Dir().
type Options struct {
	Dir string // the install folder (Dir); "" for Dir()
}

// Resolve extracts commit of the git repository at repoDir and indexes its
// Python files with scip-python and its JavaScript/TypeScript files with
// scip-typescript (each only when the commit has such files). It never
// fails as a whole: a tool that is not installed, fails, or runs past
// Timeout gives its files an Err, and a commit that cannot be extracted
// gives Result.Err; indexing goes on with names. A nil Result means the
// commit has no such file.
func Resolve(ctx context.Context, repoDir, commit string, opt Options) *Result {
	start := time.Now()
	res := resolve(ctx, repoDir, commit, cmp.Or(opt.Dir, Dir()))
	if res == nil {
		return nil
	}
	res.Elapsed = time.Since(start)
	for _, f := range res.Files {
		for _, c := range f.Calls {
			if strings.HasPrefix(c.Name, UnresolvedPrefix) {
				res.Unresolved++
			} else {
				res.Calls++
			}
		}
		if f.Err != "" {
			res.Failed++
		}
	}
	return res
}

func resolve(ctx context.Context, repoDir, commit, dir string) *Result {
	tmp, err := os.MkdirTemp("", "ragbot-scip-")
	if err != nil {
		return &Result{Err: err.Error()}
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, "src")
	if err := os.Mkdir(root, 0o755); err != nil {
		return &Result{Err: err.Error()}
	}
	if err := gocalls.Extract(ctx, repoDir, commit, root); err != nil {
		return &Result{Err: err.Error()}
	}
	byTool, err := walk(root)
	if err != nil {
		return &Result{Err: err.Error()}
	}
	if len(byTool) == 0 {
		return nil
	}
	res := &Result{Files: map[string]File{}}
	for _, tool := range []string{Python, TypeScript} {
		files := byTool[tool]
		if len(files) == 0 {
			continue
		}
		t0 := time.Now()
		idx, err := []document(nil), installed(dir, tool)
		if err == nil {
			idx, err = run(ctx, dir, tool, root, filepath.Join(tmp, tool+".scip"))
		}
		res.Tools = append(res.Tools, fmt.Sprintf("%s %.1fs", tool, time.Since(t0).Seconds()))
		if err != nil {
			for _, p := range files {
				res.Files[p] = File{Tool: tool, Err: err.Error()}
			}
			continue
		}
		byPath := map[string]document{}
		for _, d := range idx {
			byPath[d.path] = d
		}
		for _, p := range files {
			text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
			if err != nil {
				res.Files[p] = File{Tool: tool, Err: err.Error()}
				continue
			}
			res.Files[p] = File{Tool: tool, Calls: fileCalls(byPath[p], text)}
		}
	}
	return res
}

// tsconfig is the one scip-typescript is given when the commit has no
// tsconfig.json at its root: without allowJs, and with --infer-tsconfig, a
// package holding a .d.ts is indexed for its .d.ts alone (docs/callers.md).
const tsconfig = `{"compilerOptions":{"allowJs":true,"noEmit":true}}`

// run indexes root with tool, writing the index to out, and decodes it.
// The error says which tool failed and the end of its output.
func run(ctx context.Context, dir, tool, root, out string) ([]document, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, Timeout, fmt.Errorf("%s ran past %s", tool, Timeout))
	defer cancel()
	bin := filepath.Join(dir, "node_modules", ".bin", tool)
	var args []string
	switch tool {
	case Python:
		args = []string{"index", ".", "--project-name", "ragbot", "--project-version", "0", "--output", out, "--quiet"}
	case TypeScript:
		tc := filepath.Join(root, "tsconfig.json")
		if _, err := os.Stat(tc); errors.Is(err, fs.ErrNotExist) {
			if err := os.WriteFile(tc, []byte(tsconfig), 0o644); err != nil {
				return nil, err
			}
		}
		args = []string{"index", "--no-progress-bar", "--output", out}
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = root
	var outb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outb, &outb
	if err := cmd.Run(); err != nil {
		if c := context.Cause(ctx); c != nil {
			err = c
		}
		return nil, fmt.Errorf("%s: %w: %s", tool, err, tail(outb.String(), 300))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("%s wrote no index: %w: %s", tool, err, tail(outb.String(), 300))
	}
	docs, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: read index: %w", tool, err)
	}
	return docs, nil
}

// tail is the last n bytes of s, trimmed, on one line.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return strings.Join(strings.Fields(s), " ")
}

// callRe is a method call as the name match reads it (retrieval's
// siteMatcher for a qualified method): ".name(".
var callRe = regexp.MustCompile(`\.([A-Za-z_$][A-Za-z0-9_$]*)\s*\(`)

// fileCalls are the calls of one file: each reference (not a definition)
// to a method or function symbol of doc, and each ".name(" of text whose
// name starts no occurrence with a symbol (unresolved: SCIP could not
// type the receiver). A ".name(" that SCIP gave a symbol of something else
// (a local function of a bundle, a property, another method) is neither.
func fileCalls(doc document, text []byte) []Call {
	var calls []Call
	type pos struct{ line, char int }
	symbolAt := map[pos]bool{}
	for _, o := range doc.occurrences {
		if o.symbol != "" {
			symbolAt[pos{o.line, o.char}] = true
		}
		if n := methodName(o.symbol); n != "" && o.roles&roleDefinition == 0 {
			calls = append(calls, Call{Line: o.line + 1, Name: n})
		}
	}
	for i, l := range strings.Split(string(text), "\n") {
		for _, m := range callRe.FindAllStringSubmatchIndex(l, -1) {
			at := m[2] // the name's byte offset; SCIP counts UTF-16 units or bytes
			if symbolAt[pos{i, at}] || symbolAt[pos{i, utf16Len(l[:at])}] {
				continue
			}
			calls = append(calls, Call{Line: i + 1, Name: UnresolvedPrefix + l[m[2]:m[3]]})
		}
	}
	slices.SortFunc(calls, func(a, b Call) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), strings.Compare(a.Name, b.Name))
	})
	return slices.Compact(calls)
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// toolFor is the indexer of a file by its extension, or "".
func toolFor(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".py":
		return Python
	case ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts":
		return TypeScript
	}
	return ""
}

// walk lists the Python and JavaScript/TypeScript files under root by
// tool, relative to root with "/" separators, outside node_modules and
// .git.
func walk(root string) (map[string][]string, error) {
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if t := toolFor(rel); t != "" {
			out[t] = append(out[t], filepath.ToSlash(rel))
		}
		return nil
	})
	return out, err
}

// Handles reports whether the file at path p is one the indexers read
// (Python or JavaScript/TypeScript, by extension).
func Handles(p string) bool { return toolFor(p) != "" }
