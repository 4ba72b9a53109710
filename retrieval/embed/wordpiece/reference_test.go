package wordpiece

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fixtures in testdata/wordpiece come from Hugging Face tokenizers 0.23.3
// (scripts/make-wordpiece-fixture.py) with all-MiniLM-L6-v2's tokenizer.json.
// bge-small-en-v1.5 and e5-small-v2 have the same vocabulary, normalizer,
// pre-tokenizer, post-processor and added tokens (same SHA-256 of each
// section), so these fixtures cover them too.
const testdata = "../../../testdata/wordpiece"

// loadMiniLM gunzips testdata's tokenizer.json and loads it with Load.
func loadMiniLM(tb testing.TB) *Tokenizer {
	tb.Helper()
	data := readGzip(tb, filepath.Join(testdata, "tokenizer.json.gz"))
	path := filepath.Join(tb.TempDir(), "tokenizer.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	tk, err := Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	return tk
}

func readGzip(tb testing.TB, path string) []byte {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return data
}

type record struct {
	Text      string  `json:"text"`
	MaxTokens int     `json:"max_tokens"`
	IDs       []int64 `json:"ids"`
}

func readRecords(tb testing.TB) []record {
	tb.Helper()
	var recs []record
	for i, line := range strings.Split(strings.TrimSpace(string(readGzip(tb, filepath.Join(testdata, "minilm-ids.jsonl.gz")))), "\n") {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			tb.Fatalf("minilm-ids.jsonl.gz line %d: %v", i+1, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// firstDiff returns the first index where a and b differ, or -1.
func firstDiff(a, b []int64) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func TestMatchesReferenceTokenizer(t *testing.T) {
	tk := loadMiniLM(t)
	recs := readRecords(t)
	if len(recs) < 1000 {
		t.Fatalf("fixture has %d records, want at least 1000", len(recs))
	}
	same := 0
	for i, r := range recs {
		got := tk.Encode(r.Text, r.MaxTokens)
		if d := firstDiff(r.IDs, got); d >= 0 {
			t.Errorf("record %d, Encode(%q, %d): first difference at position %d\n want %v\n  got %v",
				i, r.Text, r.MaxTokens, d, r.IDs, got)
			continue
		}
		same++
	}
	t.Logf("%d/%d records identical to the reference", same, len(recs))
}

// TestNormalizerEveryCodePoint checks BertNormalizer and BertPreTokenizer on
// "a" + c + "b" for every code point c against the reference's words.
func TestNormalizerEveryCodePoint(t *testing.T) {
	tk := loadMiniLM(t)
	data := readGzip(t, filepath.Join(testdata, "minilm-codepoints.tsv.gz"))
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	checked, bad := 0, 0
	for sc.Scan() {
		first, last, words, err := parseRun(sc.Text())
		if err != nil {
			t.Fatalf("minilm-codepoints.tsv.gz: %q: %v", sc.Text(), err)
		}
		for c := first; c <= last; c++ {
			if !utf8.ValidRune(c) {
				continue
			}
			checked++
			want := make([]string, len(words))
			for i, w := range words {
				want[i] = strings.ReplaceAll(w, "\x00", string(c))
			}
			got := tk.wordsOf("a" + string(c) + "b")
			if strings.Join(got, "\x01") != strings.Join(want, "\x01") {
				if bad++; bad <= 40 {
					t.Errorf("U+%04X %q: words %q, want %q", c, string(c), got, want)
				}
			}
		}
	}
	if checked < 0x110000-0x800 {
		t.Fatalf("checked %d code points, want all %d", checked, 0x110000-0x800)
	}
	if bad > 0 {
		t.Errorf("%d of %d code points differ from the reference", bad, checked)
	}
}

// parseRun reads "first<TAB>last<TAB>json" (hex code points).
func parseRun(line string) (first, last rune, words []string, err error) {
	f := strings.SplitN(line, "\t", 3)
	if len(f) != 3 {
		return 0, 0, nil, strconv.ErrSyntax
	}
	a, err := strconv.ParseUint(f[0], 16, 32)
	if err != nil {
		return 0, 0, nil, err
	}
	b, err := strconv.ParseUint(f[1], 16, 32)
	if err != nil {
		return 0, 0, nil, err
	}
	err = json.Unmarshal([]byte(f[2]), &words)
	return rune(a), rune(b), words, err
}

// wordsOf returns the words BertNormalizer and BertPreTokenizer make of text.
func (t *Tokenizer) wordsOf(text string) []string {
	var words []string
	e := encoder{t: t, limit: -1, ids: make([]int64, 1), words: &words}
	e.word = e.wordBuf[:0]
	e.run(text)
	return words
}

// TestModelDirTokenizers runs the fixture on every tokenizer.json that
// scripts/install-model.sh installed (DIR/NAME/NAME-tokenizer.json, DIR
// being $RAGBOT_MODEL_DIR, else $XDG_CACHE_HOME/ragbot/models, else
// ~/.cache/ragbot/models; also DIR/*tokenizer.json), such as the
// bge-small-en-v1.5 and e5-small-v2 files, which should match
// all-MiniLM-L6-v2's. It skips when none is installed, and fails then with
// RAGBOT_REQUIRE_MODEL=1 (CI installs the default model).
func TestModelDirTokenizers(t *testing.T) {
	dir := os.Getenv("RAGBOT_MODEL_DIR")
	if dir == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				t.Skip("no model directory: ", err)
			}
			base = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(base, "ragbot", "models")
	}
	var paths []string
	for _, pattern := range []string{"*tokenizer.json", filepath.Join("*", "*tokenizer.json")} {
		found, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, found...)
	}
	if len(paths) == 0 {
		if os.Getenv("RAGBOT_REQUIRE_MODEL") == "1" {
			t.Fatalf("%s: no tokenizer.json installed; run bash scripts/install-model.sh", dir)
		}
		t.Skipf("%s: no tokenizer.json installed (bash scripts/install-model.sh)", dir)
	}
	recs := readRecords(t)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tk, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for _, r := range recs {
				if firstDiff(r.IDs, tk.Encode(r.Text, r.MaxTokens)) >= 0 {
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d records differ from the reference", bad, len(recs))
			}
		})
	}
}
