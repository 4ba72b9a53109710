package wordpiece

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every want below is the output of Hugging Face tokenizers 0.23.3 on
// all-MiniLM-L6-v2's tokenizer.json, with the tokens it printed.
func TestEncode(t *testing.T) {
	tk := loadMiniLM(t)
	tests := []struct {
		name      string
		text      string
		maxTokens int
		want      []int64
	}{
		{"empty", "", 0, []int64{101, 102}},
		{"punctuation split off", "Hello, World!", 0, []int64{101, 7592, 1010, 2088, 999, 102}}, // hello , world !
		{"accents stripped", "naïve café", 0, []int64{101, 15743, 7668, 102}},                   // naive cafe
		{"combining mark stripped", "ab\u0301c", 0, []int64{101, 5925, 102}},                    // abc
		// ecole st ##raße istanbul: ß has no decomposition; İ is I + U+0307 after NFD
		{"uppercase accents", "ÉCOLE Straße İstanbul", 0, []int64{101, 12431, 2358, 27807, 9960, 102}},
		{"special tokens in text", "x[SEP]y [MASK]", 0, []int64{101, 1060, 102, 1061, 103, 102}},
		{"special tokens are case-sensitive", "[sep] stays text", 0, []int64{101, 1031, 19802, 1033, 12237, 3793, 102}},
		{"CJK ideographs are words", "中文abc", 0, []int64{101, 1746, 1861, 5925, 102}}, // 中 文 abc
		// tab nu ##lb ##ell zero ##wi ##dt ##h: NUL, BEL and U+200B are dropped, joining words
		{"control chars dropped", "tab\tnul\x00bell\x07 zero\u200bwidth", 0, []int64{101, 21628, 16371, 20850, 5349, 5717, 9148, 11927, 2232, 102}},
		{"camelCase and snake_case", "getHTTPResponse snake_case", 0, []int64{101, 2131, 11039, 25856, 6072, 26029, 3366, 7488, 1035, 2553, 102}},
		{"word pieces", "unaffable", 0, []int64{101, 14477, 20961, 3468, 102}}, // una ##ffa ##ble
		{"101 chars is [UNK]", strings.Repeat("a", 101), 0, []int64{101, 100, 102}},
		{"emoji not in vocab", "🎉", 0, []int64{101, 100, 102}},
		{"max 1 does not truncate", "hello world foo bar", 1, []int64{101, 7592, 2088, 29379, 3347, 102}},
		{"max 2", "hello world foo bar", 2, []int64{101, 102}},
		{"max 3", "hello world foo bar", 3, []int64{101, 7592, 102}},
		{"max 4", "hello world foo bar", 4, []int64{101, 7592, 2088, 102}},
		{"truncation inside a word", "unaffable", 3, []int64{101, 14477, 102}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tk.Encode(tt.text, tt.maxTokens)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Encode(%q, %d) (-want +got):\n%s", tt.text, tt.maxTokens, diff)
			}
		})
	}
}

func TestSpecialIDs(t *testing.T) {
	tk := loadMiniLM(t)
	got := []int64{tk.CLS(), tk.SEP(), tk.PAD()}
	if diff := cmp.Diff([]int64{101, 102, 0}, got); diff != "" {
		t.Errorf("CLS, SEP, PAD (-want +got):\n%s", diff)
	}
}

// TestLoadRejects edits one field of the all-MiniLM-L6-v2 file at a time.
func TestLoadRejects(t *testing.T) {
	tests := []struct {
		name string
		edit func(f map[string]any)
		want string
	}{
		{"normalizer missing", func(f map[string]any) { f["normalizer"] = nil },
			`normalizer: missing, want type "BertNormalizer"`},
		{"normalizer type", func(f map[string]any) { f["normalizer"] = map[string]any{"type": "Sequence"} },
			`normalizer.type: "Sequence" is not supported, want "BertNormalizer"`},
		{"pre_tokenizer type", func(f map[string]any) { f["pre_tokenizer"] = map[string]any{"type": "Whitespace"} },
			`pre_tokenizer.type: "Whitespace" is not supported, want "BertPreTokenizer"`},
		{"model type", func(f map[string]any) { f["model"].(map[string]any)["type"] = "BPE" },
			`model.type: "BPE" is not supported, want "WordPiece"`},
		{"continuation prefix", func(f map[string]any) { f["model"].(map[string]any)["continuing_subword_prefix"] = "@@" },
			`model.continuing_subword_prefix: "@@" is not supported, want "##"`},
		{"unk token", func(f map[string]any) { f["model"].(map[string]any)["unk_token"] = "<unk>" },
			`model.unk_token: "<unk>" is not in model.vocab`},
		{"normalized added token", func(f map[string]any) {
			f["added_tokens"].([]any)[0].(map[string]any)["normalized"] = true
		}, `added_tokens[0] "[PAD]": normalized, lstrip, rstrip and single_word must be false`},
		{"post_processor type", func(f map[string]any) { f["post_processor"] = map[string]any{"type": "RobertaProcessing"} },
			`post_processor: type: "RobertaProcessing" is not supported, want "TemplateProcessing" or "BertProcessing"`},
		{"template without CLS", func(f map[string]any) {
			pp := f["post_processor"].(map[string]any)
			pp["single"] = pp["single"].([]any)[1:]
		}, `post_processor: single: want the template [CLS] $A [SEP], got 2 items`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeEdited(t, tt.edit)
			_, err := Load(path)
			if err == nil {
				t.Fatalf("Load: no error, want %q", tt.want)
			}
			if got := strings.TrimPrefix(err.Error(), "wordpiece: "+path+": "); got != tt.want {
				t.Errorf("Load: error %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLoadBertProcessing(t *testing.T) {
	path := writeEdited(t, func(f map[string]any) {
		f["post_processor"] = map[string]any{"type": "BertProcessing", "sep": []any{"[SEP]", 102}, "cls": []any{"[CLS]", 101}}
	})
	tk, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{101, 7592, 102}, tk.Encode("hello", 0)); diff != "" {
		t.Errorf("Encode(hello) (-want +got):\n%s", diff)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.json"))
	if err == nil || !os.IsNotExist(err) && !strings.Contains(err.Error(), "no such file") {
		t.Errorf("Load(missing file): %v, want a not-exist error", err)
	}
}

// writeEdited writes the all-MiniLM-L6-v2 tokenizer.json after edit.
func writeEdited(t *testing.T, edit func(f map[string]any)) string {
	t.Helper()
	var f map[string]any
	if err := json.Unmarshal(readGzip(t, filepath.Join(testdata, "tokenizer.json.gz")), &f); err != nil {
		t.Fatal(err)
	}
	edit(f)
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEncodeConcurrent encodes the fixture from 8 goroutines at once; run it
// with -race to check that Encode shares no state.
func TestEncodeConcurrent(t *testing.T) {
	tk := loadMiniLM(t)
	recs := readRecords(t)
	var wg sync.WaitGroup
	errs := make([]int, 8) // mismatches per goroutine
	for g := range errs {
		wg.Add(1)
		go func() { // exits after one pass over recs
			defer wg.Done()
			for i := g; i < len(recs); i += 2 {
				if firstDiff(recs[i].IDs, tk.Encode(recs[i].Text, recs[i].MaxTokens)) >= 0 {
					errs[g]++
				}
			}
		}()
	}
	wg.Wait()
	for g, n := range errs {
		if n > 0 {
			t.Errorf("goroutine %d: %d records differ from the reference", g, n)
		}
	}
}

// BenchmarkEncode encodes the fixture's 40-line windows of this repository
// (Go and Markdown); ns/op is per chunk.
func BenchmarkEncode(b *testing.B) {
	tk := loadMiniLM(b)
	var chunks []string
	size := 0
	for _, r := range readRecords(b) {
		if r.MaxTokens == 256 && strings.Count(r.Text, "\n") == 39 {
			chunks = append(chunks, r.Text)
			size += len(r.Text)
		}
	}
	for _, max := range []int{256, 0} {
		name := map[int]string{256: "max256", 0: "nolimit"}[max]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size / len(chunks)))
			i := 0
			for b.Loop() {
				tk.Encode(chunks[i%len(chunks)], max)
				i++
			}
		})
	}
}
