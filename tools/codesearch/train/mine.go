package train

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/ragbot/ragbot/ingest/code"
	"github.com/ragbot/ragbot/retrieval"
)

// A Pair is one training example: what a person might ask, and the code
// that answers it.
type Pair struct {
	Lang string // go, python, javascript or typescript
	// Doc is the first sentence of the symbol's doc comment with the
	// symbol's own name taken out: the held-out evaluation's query.
	Doc string
	// Queries are Doc and its rewrites into questions (Rewrite); training
	// draws one of them per epoch.
	Queries []string
	// Code is what the embedder reads of the symbol at index time
	// (ingest.EmbedText: symbol, path, signature, content) without the doc
	// comment.
	Code   string
	Path   string // file path, relative to the root it was mined from
	Symbol string
}

// minDocWords is the fewest words a doc sentence needs to be a query, and
// maxDocWords where it is cut.
const (
	minDocWords = 3
	maxDocWords = 40
	minCodeRows = 3 // lines of code without the doc comment
)

// MineFile returns the (doc comment, code) pairs of one source file: one
// per function, method, class or type that the ingest/code chunker finds
// with a doc comment (Go and JavaScript/TypeScript comments above it, a
// Python docstring inside it) of at least minDocWords words. path is
// slash-separated and picks the language; files the indexer skips
// (code.SkipReason), tests, declaration files (.d.ts) and files with a
// reserved path segment (see Reserved) give none.
func MineFile(path string, src []byte) []Pair {
	if reservedPath(path) {
		return nil
	}
	lang := code.Language(path)
	switch lang {
	case "go", "python", "javascript", "typescript":
	default:
		return nil
	}
	if testFile(path) || code.SkipReason(path, src) != "" {
		return nil
	}
	var out []Pair
	for _, c := range code.Chunk(path, src, code.Options{}).Chunks {
		if c.Symbol == "" || c.Ordinal != 0 || c.SymbolKind == "window" || c.SymbolKind == "var" || c.SymbolKind == "const" {
			continue
		}
		doc, body := splitDoc(lang, c.Content)
		if strings.Count(strings.TrimSpace(body), "\n")+1 < minCodeRows {
			continue
		}
		sentence := stripName(firstSentence(doc), c.Symbol)
		if !goodDoc(sentence) {
			continue
		}
		out = append(out, Pair{
			Lang:    lang,
			Doc:     sentence,
			Queries: Rewrite(sentence),
			Code:    c.Symbol + "\n" + path + "\n" + c.Signature + "\n" + body,
			Path:    path,
			Symbol:  c.Symbol,
		})
	}
	return out
}

// testFile reports whether path is a test, fixture or declaration file.
func testFile(p string) bool {
	base := filepath.Base(p)
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "testdata", "test", "tests", "__tests__", "vendor", "node_modules", "fixtures":
			return true
		}
	}
	return strings.HasSuffix(base, "_test.go") || strings.HasPrefix(base, "test_") ||
		strings.HasSuffix(base, "_test.py") || base == "conftest.py" ||
		strings.HasSuffix(base, ".d.ts") || strings.Contains(base, ".test.") ||
		strings.Contains(base, ".spec.") || strings.HasSuffix(base, ".min.js")
}

// MineDir walks dir in lexical order and returns the pairs of its files, with
// paths relative to dir. Unreadable files are skipped; a walk error is
// returned.
func MineDir(dir string) ([]Pair, error) {
	var out []Pair
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "vendor", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || reservedPath(filepath.ToSlash(p)) {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if code.Language(rel) == "" {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		out = append(out, MineFile(rel, src)...)
		return nil
	})
	return out, err
}

var (
	pyDocStart = regexp.MustCompile(`^[rRuUbB]?("""|''')`)
	docLinkRe  = regexp.MustCompile("\\{@link(?:code|plain)?\\s+([^}|\\s]+)[^}]*\\}|:[a-z]+:`~?([^`]+)`|\\[([A-Za-z_][\\w.*]*)\\]|`([^`]*)`")
	spaceRe    = regexp.MustCompile(`\s+`)
)

// splitDoc returns the doc comment text of a chunk's content, without
// comment markers, and the content without it.
func splitDoc(lang, content string) (doc, body string) {
	lines := strings.Split(content, "\n")
	if lang == "python" {
		return pyDoc(lines)
	}
	var d []string
	i := 0
	inBlock := false
	for ; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		switch {
		case inBlock:
			end := strings.Contains(t, "*/")
			t = strings.TrimSpace(strings.TrimPrefix(strings.SplitN(t, "*/", 2)[0], "*"))
			d = append(d, t)
			inBlock = !end
		case strings.HasPrefix(t, "/*"):
			end := strings.Contains(t[2:], "*/")
			t = strings.TrimPrefix(strings.TrimPrefix(t, "/*"), "*")
			d = append(d, strings.TrimSpace(strings.SplitN(t, "*/", 2)[0]))
			inBlock = !end
		case strings.HasPrefix(t, "//"):
			d = append(d, strings.TrimSpace(strings.TrimLeft(t, "/")))
		default:
			return cutTags(d), strings.Join(lines[i:], "\n")
		}
	}
	return cutTags(d), ""
}

// cutTags drops JSDoc block tags (@param ...) and everything after the
// first, and Go directives (//go:..., //nolint).
func cutTags(d []string) string {
	var keep []string
	for _, l := range d {
		if strings.HasPrefix(l, "@") {
			break
		}
		if strings.HasPrefix(l, "go:") || strings.HasPrefix(l, "nolint") || strings.HasPrefix(l, "eslint") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// pyDoc finds the docstring: the first statement of the body, a string
// literal right after the header line that ends with ":".
func pyDoc(lines []string) (doc, body string) {
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if !strings.HasSuffix(strings.TrimSpace(strings.SplitN(t, "#", 2)[0]), ":") {
			continue
		}
		// lines[i] ends the header; the docstring, if any, is next.
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j == len(lines) {
			return "", strings.Join(lines, "\n")
		}
		t = strings.TrimSpace(lines[j])
		m := pyDocStart.FindStringSubmatch(t)
		if m == nil {
			return "", strings.Join(lines, "\n")
		}
		q := m[1]
		rest := t[len(m[0]):]
		var d []string
		k := j
		for {
			if e := strings.Index(rest, q); e >= 0 {
				d = append(d, rest[:e])
				break
			}
			d = append(d, rest)
			k++
			if k == len(lines) {
				return "", strings.Join(lines, "\n")
			}
			rest = strings.TrimSpace(lines[k])
		}
		body := append(append([]string(nil), lines[:j]...), lines[k+1:]...)
		return strings.Join(d, "\n"), strings.Join(body, "\n")
	}
	return "", strings.Join(lines, "\n")
}

// firstSentence returns the first sentence of the first paragraph of doc,
// markup taken out ({@link X}, :role:`X`, [X] and `X` become X), at most
// maxDocWords words.
func firstSentence(doc string) string {
	para := strings.TrimSpace(doc)
	if i := strings.Index(para, "\n\n"); i >= 0 {
		para = para[:i]
	}
	para = docLinkRe.ReplaceAllStringFunc(para, func(s string) string {
		m := docLinkRe.FindStringSubmatch(s)
		for _, g := range m[1:] {
			if g != "" {
				return g
			}
		}
		return ""
	})
	para = spaceRe.ReplaceAllString(para, " ")
	for i := 0; i+1 < len(para); i++ {
		if (para[i] == '.' || para[i] == '!' || para[i] == '?') && para[i+1] == ' ' {
			para = para[:i+1]
			break
		}
	}
	words := strings.Fields(para)
	if len(words) > maxDocWords {
		words = words[:maxDocWords]
	}
	return strings.TrimRight(strings.Join(words, " "), ".:; ")
}

// stripName removes the symbol's name from the sentence, whole tokens only
// ("Store.Upsert": "Store.Upsert" and "Upsert", case-sensitive, so the
// word "client" stays in a doc of class Client), so the model learns what
// the code does rather than to copy its name.
func stripName(s, symbol string) string {
	names := map[string]bool{symbol: true}
	parts := strings.Split(symbol, ".")
	names[parts[len(parts)-1]] = true
	var out []string
	for _, w := range strings.Fields(s) {
		core := strings.TrimFunc(w, func(r rune) bool { return !retrieval.IsTokenRune(r) && r != '.' })
		core = strings.TrimSuffix(strings.TrimSuffix(core, "()"), ".")
		if names[core] || names[strings.TrimSuffix(core, "'s")] {
			continue
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

// goodDoc reports whether a sentence is worth a query: enough words, starts
// with a letter, and is not boilerplate.
func goodDoc(s string) bool {
	words := strings.Fields(s)
	if len(words) < minDocWords {
		return false
	}
	r := []rune(s)[0]
	if !unicode.IsLetter(r) {
		return false
	}
	l := strings.ToLower(s)
	for _, bad := range []string{"deprecated", "todo", "copyright", "generated", "xxx", "fixme", "see ", "license", "http://", "https://"} {
		if strings.HasPrefix(l, bad) {
			return false
		}
	}
	return !strings.Contains(l, "do not edit")
}
