package eval_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval/eval"
)

// corpusRoots maps the corpus names of the public eval set to where its
// fetch-corpus.sh (docs/evaluation.md, "Question sets") puts them under its DEST_DIR.
var corpusRoots = map[string]string{
	"github.com/prometheus/alertmanager@v0.35.0": "alertmanager@v0.35.0",
	"npm:@octokit/openapi@23.0.2":                "octokit-openapi@23.0.2/package/generated/api.github.com.json",
}

// TestUnanswerableAbsent checks testdata/eval/unanswerable.jsonl: every
// question has "expect": [] and at least one line in unanswerable.absent
// saying what its corpus lacks, and, when RAGBOT_EVAL_CORPUS names the
// directory that the eval set's fetch-corpus.sh filled, that each such
// claim holds: the text is in no file, no path contains the fragment, the
// API has no such operation.
func TestUnanswerableAbsent(t *testing.T) {
	const dir = "../../testdata/eval"
	f, err := os.Open(filepath.Join(dir, "unanswerable.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := eval.Load(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	checks := readAbsent(t, filepath.Join(dir, "unanswerable.absent"))
	perCorpus := map[string]int{}
	byID := map[string]eval.Question{}
	for _, q := range qs {
		byID[q.ID] = q
		perCorpus[q.Corpus]++
		if len(q.Expect) != 0 {
			t.Errorf("%s: expect must be empty", q.ID)
		}
		if len(checks[q.ID]) == 0 {
			t.Errorf("%s: no line in unanswerable.absent says what the corpus lacks", q.ID)
		}
	}
	for id := range checks {
		if _, ok := byID[id]; !ok {
			t.Errorf("unanswerable.absent: %s is not a question", id)
		}
	}
	for c, n := range perCorpus {
		if n < 15 {
			t.Errorf("corpus %s: %d unanswerable questions, want at least 15 per corpus", c, n)
		}
	}
	root := os.Getenv("RAGBOT_EVAL_CORPUS")
	if root == "" {
		t.Skip("RAGBOT_EVAL_CORPUS is not set: the absence claims are not checked against the corpora")
	}
	corpora := map[string]*corpusText{}
	for _, q := range qs {
		c := corpora[q.Corpus]
		if c == nil {
			rel, ok := corpusRoots[q.Corpus]
			if !ok {
				t.Fatalf("%s: unknown corpus %q", q.ID, q.Corpus)
			}
			c = loadCorpus(t, filepath.Join(root, rel))
			corpora[q.Corpus] = c
		}
		for _, chk := range checks[q.ID] {
			kind, arg, _ := strings.Cut(chk, ":")
			switch kind {
			case "text":
				if f := c.fileWith(arg); f != "" {
					t.Errorf("%s: %q occurs in %s", q.ID, arg, f)
				}
			case "path":
				for _, p := range c.paths {
					if strings.Contains(strings.ToLower(p), strings.ToLower(arg)) {
						t.Errorf("%s: path %s contains %q", q.ID, p, arg)
					}
				}
			case "op":
				method, path, _ := strings.Cut(arg, " ")
				if c.ops[strings.ToUpper(method)+" "+path] {
					t.Errorf("%s: the API has %s", q.ID, arg)
				}
			default:
				t.Errorf("%s: unknown check %q", q.ID, chk)
			}
		}
	}
}

// readAbsent parses unanswerable.absent: "ID<TAB>CHECK" lines, # comments.
func readAbsent(t *testing.T, path string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, chk, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("%s:%d: want ID<TAB>CHECK, got %q", path, n, line)
		}
		out[id] = append(out[id], chk)
	}
	return out
}

// corpusText is a corpus as the checks see it: lower-cased file texts,
// file paths (or API path templates) and API operations ("GET /path").
type corpusText struct {
	files map[string]string
	paths []string
	ops   map[string]bool
}

func (c *corpusText) fileWith(s string) string {
	s = strings.ToLower(s)
	for name, text := range c.files {
		if strings.Contains(text, s) {
			return name
		}
	}
	return ""
}

// loadCorpus reads a directory tree (a repository) or one API description.
func loadCorpus(t *testing.T, root string) *corpusText {
	t.Helper()
	c := &corpusText{files: map[string]string{}, ops: map[string]bool{}}
	st, err := os.Stat(root)
	if err != nil {
		t.Fatal(err)
	}
	if !st.IsDir() {
		data, err := os.ReadFile(root)
		if err != nil {
			t.Fatal(err)
		}
		c.files[filepath.Base(root)] = strings.ToLower(string(data))
		var spec struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal(data, &spec); err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		for p, item := range spec.Paths {
			c.paths = append(c.paths, p)
			for m := range item {
				c.ops[strings.ToUpper(m)+" "+p] = true
			}
		}
		return c
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		c.paths = append(c.paths, filepath.ToSlash(rel))
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		c.files[rel] = strings.ToLower(string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
