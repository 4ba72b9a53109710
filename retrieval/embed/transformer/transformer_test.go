package transformer

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embedtest"
)

// reference is testdata/reference.json, written by
// scripts/make-transformer-fixture.py with Python onnxruntime and Hugging
// Face tokenizers.
type reference struct {
	Texts  map[string]string
	Models map[string][]struct {
		Text      string
		Kind      string // "passage" (Embed) or "query" (EmbedQueries)
		MaxTokens int    `json:"max_tokens"` // 0: the Spec's
		Vector    []float32
	}
}

// TestReference checks that each model gives the Python reference vectors:
// its tokenizer, pooling, prefixes and truncation agree with the
// model card's recipe.
func TestReference(t *testing.T) {
	data, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	for _, spec := range Specs {
		t.Run(spec.Name, func(t *testing.T) {
			cases := ref.Models[spec.Name]
			if len(cases) == 0 {
				t.Fatalf("testdata/reference.json has no vectors of %s: rerun scripts/make-transformer-fixture.py with it installed", spec.Name)
			}
			worst := 1.0
			for _, c := range cases {
				e := installed(t, spec.Name, Options{MaxTokens: c.MaxTokens})
				embed := e.Embed
				if c.Kind == "query" {
					embed = e.EmbedQueries
				}
				got, err := embed(context.Background(), []string{ref.Texts[c.Text]})
				if err != nil {
					t.Fatalf("%s %s: %v", c.Text, c.Kind, err)
				}
				cos := retrieval.Cosine(c.Vector, got[0])
				if cos < embedtest.Same {
					t.Errorf("%s as %s: cosine with the reference %.6f, want >= %v", c.Text, c.Kind, cos, embedtest.Same)
				}
				worst = min(worst, cos)
			}
			t.Logf("%d vectors, lowest cosine with the reference %.6f", len(cases), worst)
		})
	}
}

// TestEmbedder runs the conformance checks on each model with its default
// options, and on the fp32 model with batches of 16 rows, whose vectors
// must not depend on the batch (the int8 ones do; see Spec.Int8).
func TestEmbedder(t *testing.T) {
	for _, spec := range Specs {
		t.Run(spec.Name, func(t *testing.T) {
			e := installed(t, spec.Name, Options{})
			embedtest.TestEmbedder(t, e)
			if e.Dim() != 384 || e.Name() != "onnx-"+spec.Name+"-384" {
				t.Errorf("Name() %q, Dim() %d; want onnx-%s-384 and 384", e.Name(), e.Dim(), spec.Name)
			}
		})
	}
	t.Run("all-minilm-l6-v2/batch16", func(t *testing.T) {
		embedtest.TestEmbedder(t, installed(t, "all-minilm-l6-v2", Options{BatchSize: 16}))
	})
}

// TestNotInstalled checks that a missing model or runtime gives an error
// that matches ErrNotInstalled, names the file and the install command.
func TestNotInstalled(t *testing.T) {
	empty := t.TempDir()
	_, err := New(DefaultModel, Options{ModelDir: empty})
	checkNotInstalled(t, err, filepath.Join(empty, DefaultModel, DefaultModel+".onnx"))
	checkNotInstalled(t, Installed(DefaultModel, empty), filepath.Join(empty, DefaultModel, DefaultModel+".onnx"))

	// The model without the runtime: needs the installed model.
	installed(t, DefaultModel, Options{})
	dir, err := DefaultModelDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := Installed(DefaultModel, dir); err != nil {
		t.Errorf("Installed(%q, %q) = %v, want nil: New loaded it", DefaultModel, dir, err)
	}
	modelOnly := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, DefaultModel), filepath.Join(modelOnly, DefaultModel)); err != nil {
		t.Fatal(err)
	}
	_, err = New(DefaultModel, Options{ModelDir: modelOnly, RuntimeLib: filepath.Join(modelOnly, "libonnxruntime.so")})
	checkNotInstalled(t, err, filepath.Join(modelOnly, "libonnxruntime.so"))
	checkNotInstalled(t, Installed(DefaultModel, modelOnly), filepath.Join(modelOnly, runtimeFile))
}

func checkNotInstalled(t *testing.T, err error, path string) {
	t.Helper()
	if !errors.Is(err, ErrNotInstalled) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("New with %s missing: error %v, want one matching ErrNotInstalled and fs.ErrNotExist", path, err)
	}
	for _, want := range []string{path, "bash scripts/install-model.sh " + DefaultModel} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

// TestNewBadOptions checks the errors of options and names, which need no
// installed model.
func TestNewBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"minilm", Options{}, `transformer: model "minilm" is unknown, want one of all-minilm-l6-v2-q, all-minilm-l6-v2, bge-small-en-v1.5-q, e5-small-v2-q`},
		{DefaultModel, Options{MaxTokens: 1024}, "transformer: MaxTokens 1024 is out of range, want 16 to 512 tokens (0: 256)"},
		{DefaultModel, Options{BatchSize: -1}, "transformer: BatchSize -1 is negative, want 0 (default) or more rows"},
	} {
		_, err := New(tc.name, tc.opts)
		if err == nil || err.Error() != tc.want {
			t.Errorf("New(%q, %+v) error = %v, want %s", tc.name, tc.opts, err, tc.want)
		}
	}
}

// TestClose checks that Embed after Close fails and Close twice is fine.
func TestClose(t *testing.T) {
	installed(t, DefaultModel, Options{}) // skip or fail as the others do
	e, err := New(DefaultModel, Options{Sessions: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := e.Embed(context.Background(), []string{"x"}); err == nil || got != nil {
		t.Errorf("Embed after Close = %d vectors, %v; want nil and an error", len(got), err)
	}
}
