package embedders_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/internal/embedders"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
)

// TestNew: each kind makes its embedder, and the errors name the field of
// the embedder that could not be made.
func TestNew(t *testing.T) {
	dir := t.TempDir()
	resolve := func(p string) string { return filepath.Join(dir, p) }
	tests := []struct {
		name     string
		e        config.Embedder
		wantName string // prefix of the embedder's Name
		wantErr  string // prefix of the error
	}{
		{name: "offline", e: config.Embedder{Kind: "offline"}, wantName: "offline-hash-v1-"},
		{name: "built-in codesearch", e: config.Embedder{Kind: "codesearch"}, wantName: "codesearch-v1-"},
		{name: "codesearch model resolved", e: config.Embedder{Kind: "codesearch", Model: "m.bin"}, wantErr: "embedder.model: "},
		{name: "unknown kind", e: config.Embedder{Kind: "nope"}, wantErr: `embedder.kind: unknown embedder kind "nope"`},
		{name: "unknown semantic kind", e: config.Embedder{Kind: "offline", Semantic: &config.Embedder{Kind: "nope"}},
			wantErr: `embedder.semantic.kind: unknown embedder kind "nope"`},
		{name: "semantic model", e: config.Embedder{Kind: "offline", Semantic: &config.Embedder{Kind: "codesearch", Model: "m.bin"}},
			wantErr: "embedder.model: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			emb, err := embedders.New(context.Background(), tt.e, resolve)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("New = %v, want an error starting %q", err, tt.wantErr)
				}
				if tt.e.Model != "" && !strings.Contains(err.Error(), filepath.Join(dir, tt.e.Model)) {
					t.Errorf("error %q does not name the resolved model path", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(emb.Name(), tt.wantName) {
				t.Errorf("Name = %q, want it to start with %q", emb.Name(), tt.wantName)
			}
		})
	}
}

// TestNewPair: with a semantic embedder, New returns the Pair of both with
// the semantic input limit, and Lexical and Family see through it.
func TestNewPair(t *testing.T) {
	e := config.Embedder{Kind: "offline", Semantic: &config.Embedder{Kind: "codesearch", MaxInputTokens: 512}}
	emb, err := embedders.New(context.Background(), e, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := emb.(retrieval.Pair)
	if !ok {
		t.Fatalf("New = %T, want a retrieval.Pair", emb)
	}
	if got, want := p.Lexical.Name(), embed.NewOffline().Name(); got != want {
		t.Errorf("Lexical = %q, want %q", got, want)
	}
	if p.SemanticMaxInputTokens != 512 {
		t.Errorf("SemanticMaxInputTokens = %d, want 512", p.SemanticMaxInputTokens)
	}
	if got := embedders.Lexical(emb); got.Name() != p.Lexical.Name() {
		t.Errorf("Lexical(pair) = %q, want %q", got.Name(), p.Lexical.Name())
	}
	if got := embedders.Family(p.Semantic); got != embed.CodeSearchFamily {
		t.Errorf("Family(codesearch) = %q, want %q", got, embed.CodeSearchFamily)
	}
	if got := embedders.Family(p.Lexical); got != p.Lexical.Name() {
		t.Errorf("Family(offline) = %q, want its name %q", got, p.Lexical.Name())
	}
}

// TestNewOpenAI: kind openai learns the vector length with one request,
// sending the key of the variable api_key_env names.
func TestNewOpenAI(t *testing.T) {
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		_ = json.NewEncoder(w).Encode(map[string]any{"data": []map[string]any{{"index": 0, "embedding": []float32{1, 0, 0}}}})
	}))
	defer srv.Close()
	t.Setenv("EMBEDDERS_TEST_KEY", "sk-test")
	e := config.Embedder{Kind: "openai", Model: "m", OpenAI: config.OpenAI{BaseURL: srv.URL, APIKeyEnv: "EMBEDDERS_TEST_KEY"}}
	emb, err := embedders.New(context.Background(), e, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := emb.Name(), "openai:m:3"; got != want {
		t.Errorf("Name = %q, want %q", got, want)
	}
	if diff := cmp.Diff([]string{"Bearer sk-test"}, auth); diff != "" {
		t.Errorf("Authorization headers (-want +got):\n%s", diff)
	}
}

// TestThresholds: an entry for the embedder's name wins over one for its
// family; the fields an entry leaves unset keep retrieval's defaults.
func TestThresholds(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cs, err := embedders.New(context.Background(), config.Embedder{Kind: "codesearch"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	off := embed.NewOffline()
	r := config.Retrieval{Thresholds: map[string]config.Thresholds{
		embed.CodeSearchFamily: {MinSimilarity: f(0.5), MaxAbsentShare: f(0.7)},
		off.Name():             {FloorTermCoverage: f(0.2)},
	}}
	def := retrieval.DefaultThresholds()
	wantCS, wantOff := def, def
	wantCS.MinSimilarity, wantCS.MaxAbsentShare = 0.5, 0.7
	wantOff.FloorTermCoverage = 0.2
	if diff := cmp.Diff(wantCS, embedders.Thresholds(r, cs)); diff != "" {
		t.Errorf("codesearch by family (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantOff, embedders.Thresholds(r, off)); diff != "" {
		t.Errorf("offline by name (-want +got):\n%s", diff)
	}
	r.Thresholds[cs.Name()] = config.Thresholds{MinTermCoverage: f(0.4)}
	wantName := def
	wantName.MinTermCoverage = 0.4
	if diff := cmp.Diff(wantName, embedders.Thresholds(r, cs)); diff != "" {
		t.Errorf("codesearch by name (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(def, embedders.Thresholds(config.Retrieval{}, off)); diff != "" {
		t.Errorf("no entry (-want +got):\n%s", diff)
	}
}

// TestCloseONNX: closing the default Pair closes its transformer, whose
// ONNX Runtime sessions the garbage collector would never free: it embeds
// before and refuses after, and a second close is harmless.
func TestCloseONNX(t *testing.T) {
	e := config.Embedder{Kind: "offline", Semantic: &config.Embedder{Kind: "onnx"}}
	if err := embedders.CheckInstalled(e); err != nil {
		if os.Getenv("RAGBOT_REQUIRE_MODEL") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	emb, err := embedders.New(context.Background(), e, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := emb.Embed(ctx, []string{"func Retry() {}"}); err != nil {
		t.Fatalf("Embed before Close: %v", err)
	}
	for range 2 {
		if err := retrieval.CloseEmbedder(emb); err != nil {
			t.Fatalf("CloseEmbedder: %v", err)
		}
	}
	if _, err := emb.Embed(ctx, []string{"func Retry() {}"}); err == nil {
		t.Fatal("Embed after Close succeeded, want the closed transformer's error")
	}
}
