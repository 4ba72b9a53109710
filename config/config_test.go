package config_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ragbot/ragbot/config"
)

// dir holds the test configs and the folders their sources point at.
const dir = "../testdata/config"

// env returns a lookup function over m, for Parse.
func env(m map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// parseFile parses the config file name in dir against the environment m.
func parseFile(t *testing.T, name string, m map[string]string) (*config.Config, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return config.Parse(data, dir, env(m))
}

// clearEnv hides the RAGBOT_* variables of the machine running the test from
// Load: applyEnv ignores an empty value.
func clearEnv(t *testing.T) {
	t.Helper()
	for name := range config.Env {
		t.Setenv(name, "")
	}
}

func ptr[T any](v T) *T { return &v }

func TestLoadGood(t *testing.T) {
	clearEnv(t)
	path := filepath.Join(dir, "good.yaml")
	got, err := config.Load(path)
	if err != nil {
		t.Fatalf("Load(%q): %v", path, err)
	}
	want := &config.Config{
		Weaviate: config.Weaviate{
			DataDir:    ".ragbot/weaviate",
			Port:       8079,
			Collection: "Chunk",
			Timeout:    60 * time.Second,
			// One copy, so one replica answers.
			ReplicationFactor: 1, ConsistencyLevel: "ONE",
		},
		Embedder: config.Embedder{Kind: "offline", Semantic: &config.Embedder{Kind: config.DefaultSemanticKind}},
		Retrieval: config.Retrieval{
			Alpha: ptr(config.TransformerAlpha), SemanticWeight: ptr(config.TransformerSemanticWeight),
			TopK:       5,
			Candidates: 40,
		},
		Indexing: config.Indexing{MaxSymbolLines: 150, WindowLines: 60, ReposDir: ".ragbot/repos"},
		Sources: []config.Source{
			{
				Name:         "payments",
				Kind:         "git",
				Path:         "repo",
				Branches:     []string{"main", "release/2.1"},
				LinkTemplate: "https://git.example.com/payments/blob/{commit}/{path}#L{start}-L{end}",
			},
			{Name: "handbook", Kind: "markdown", Path: "./docs", Exclude: []string{"drafts"}},
		},
		Serve: config.Serve{Listen: "127.0.0.1:8080", ShutdownTimeout: 25 * time.Second, MaxConcurrentAnswers: 4, AnswerQueueLength: 100, AnswerQueueWait: 20 * time.Second},
		Slack: config.Slack{
			Mode: "socket", APIURL: "https://slack.com/api/", BotTokenEnv: "RAGBOT_SLACK_BOT_TOKEN",
			AppTokenEnv: "RAGBOT_SLACK_APP_TOKEN", SigningSecretEnv: "RAGBOT_SLACK_SIGNING_SECRET",
			Command: "/where-is", AnswerTimeout: 30 * time.Second,
		},
		Access:   config.Access{Default: []string{"*"}},
		Feedback: config.Feedback{Retention: "180d", RetentionDuration: 180 * 24 * time.Hour},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(config.Config{})); diff != "" {
		t.Errorf("Load(%q) mismatch (-want +got):\n%s", path, diff)
	}

	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ in, want string }{
		{"repo", filepath.Join(abs, "repo")},
		{"./docs", filepath.Join(abs, "docs")},
		{"../elsewhere", filepath.Join(filepath.Dir(abs), "elsewhere")},
		{".ragbot/weaviate", filepath.Join(abs, ".ragbot", "weaviate")},
		{"/srv/repo", "/srv/repo"},
		{"", ""},
	} {
		if got := got.Resolve(tt.in); got != tt.want {
			t.Errorf("Resolve(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	clearEnv(t)
	tests := []struct {
		name string
		path string
		want string
	}{
		{
			name: "the message starts with the file",
			path: dir + "/bad-alpha.yaml",
			want: "config ../testdata/config/bad-alpha.yaml: retrieval.alpha: must be between 0 (BM25 only) and 1 (vectors only), got 1.5",
		},
		{
			name: "semantic query budget too long",
			path: dir + "/bad-semantic-query-timeout.yaml",
			want: "config ../testdata/config/bad-semantic-query-timeout.yaml: embedder.semantic.query_timeout: must be at most 10s, or 0 for 2s, got 1m0s",
		},
		{
			name: "missing file",
			path: dir + "/no-such.yaml",
			want: "config: open ../testdata/config/no-such.yaml: no such file or directory",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Load(tt.path)
			if err == nil {
				t.Fatalf("Load(%q) succeeded, want error %q", tt.path, tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("Load(%q) error mismatch (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

// TestAlpha checks that alpha 0 (BM25 only) is kept and told apart from an
// unset alpha, which takes the default: TransformerAlpha with the default
// semantic embedder (kind onnx).
func TestAlpha(t *testing.T) {
	const sources = "sources: [{name: handbook, kind: markdown, path: docs}]\n"
	tests := []struct {
		name    string
		yaml    string
		want    float64
		wantErr string
	}{
		{name: "unset", yaml: "", want: config.TransformerAlpha},
		{name: "null", yaml: "retrieval: {alpha: null}", want: config.TransformerAlpha},
		{name: "unset, codesearch", yaml: "embedder: {semantic: {kind: codesearch}}", want: config.DefaultAlpha},
		{name: "zero is pure BM25", yaml: "retrieval: {alpha: 0}", want: 0},
		{name: "zero as 0.0", yaml: "retrieval: {alpha: 0.0}", want: 0},
		{name: "one is vectors only", yaml: "retrieval: {alpha: 1}", want: 1},
		{name: "between", yaml: "retrieval: {alpha: 0.25}", want: 0.25},
		{
			name:    "negative",
			yaml:    "retrieval: {alpha: -0.1}",
			wantErr: "retrieval.alpha: must be between 0 (BM25 only) and 1 (vectors only), got -0.1",
		},
		{
			name:    "not a number",
			yaml:    "retrieval: {alpha: half}",
			wantErr: `retrieval.alpha (line 1): want a number, got "half"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tt.yaml+"\n"+sources), dir, env(nil))
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Parse succeeded with alpha %v, want error %q", *cfg.Retrieval.Alpha, tt.wantErr)
				}
				if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
					t.Errorf("Parse error mismatch (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := cfg.Retrieval.Alpha; got == nil || *got != tt.want {
				t.Errorf("Retrieval.Alpha = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseSettings(t *testing.T) {
	data := []byte(`
weaviate:
  url: https://weaviate.internal:8080
  api_key_env: WEAVIATE_KEY
  port: 9100
  collection: Code_Chunk2
  timeout: 2m30s
  replication_factor: 3
  consistency_level: all
retrieval:
  top_k: 8
  candidates: 80
  thresholds:
    offline-hash-v1-384: {min_similarity: 0, min_term_coverage: 0.75}
indexing: {max_symbol_lines: 200, window_lines: 40, workers: 3}
sources:
  - {name: payments, kind: git, path: repo, include: [cmd, internal], acl: [payments-team]}
`)
	got, err := config.Parse(data, dir, env(map[string]string{"WEAVIATE_KEY": "secret"}))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := &config.Config{
		Weaviate: config.Weaviate{
			URL:        "https://weaviate.internal:8080",
			APIKeyEnv:  "WEAVIATE_KEY",
			DataDir:    ".ragbot/weaviate",
			Port:       9100,
			Collection: "Code_Chunk2",
			Timeout:    150 * time.Second,
			// Names are case-insensitive and kept upper-case, as Weaviate spells them.
			ReplicationFactor: 3, ConsistencyLevel: "ALL",
		},
		Embedder: config.Embedder{Kind: "offline", Semantic: &config.Embedder{Kind: config.DefaultSemanticKind}},
		Retrieval: config.Retrieval{
			Alpha: ptr(config.TransformerAlpha), SemanticWeight: ptr(config.TransformerSemanticWeight),
			TopK:       8,
			Candidates: 80,
			Thresholds: map[string]config.Thresholds{"offline-hash-v1-384": {MinSimilarity: ptr(0.0), MinTermCoverage: ptr(0.75)}},
		},
		Indexing: config.Indexing{MaxSymbolLines: 200, WindowLines: 40, Workers: 3, ReposDir: ".ragbot/repos"},
		Sources: []config.Source{{
			Name: "payments", Kind: "git", Path: "repo",
			Include: []string{"cmd", "internal"}, ACL: []string{"payments-team"},
		}},
		Feedback: config.Feedback{Retention: "180d", RetentionDuration: 180 * 24 * time.Hour},
	}
	// The serve, slack and access sections keep their defaults (TestLoadGood); slack_test.go sets them.
	ignoreChat := cmpopts.IgnoreFields(config.Config{}, "Serve", "Slack", "Access")
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(config.Config{}), ignoreChat); diff != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", diff)
	}
}

func TestSources(t *testing.T) {
	cfg, err := parseFile(t, "good.yaml", nil)
	if err != nil {
		t.Fatalf("good.yaml: %v", err)
	}
	tests := []struct {
		name   string
		wantOK bool
		wantID string
	}{
		{name: "payments", wantOK: true, wantID: "repo:payments"},
		{name: "handbook", wantOK: true, wantID: "docs:handbook"},
		{name: "Payments", wantOK: false},
		{name: "", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, ok := cfg.SourceNamed(tt.name)
			if ok != tt.wantOK {
				t.Fatalf("SourceNamed(%q) ok = %v, want %v", tt.name, ok, tt.wantOK)
			}
			if !ok {
				return
			}
			if got := src.SourceID(); got != tt.wantID {
				t.Errorf("SourceID() = %q, want %q", got, tt.wantID)
			}
		})
	}
}

// TestSemanticDefault: with the offline embedder the codesearch encoder is
// the semantic vector unless kind none turns it off; other kinds get none.
func TestSemanticDefault(t *testing.T) {
	src := "sources: [{name: handbook, kind: markdown, path: docs}]\n"
	for _, tt := range []struct {
		yaml string
		want *config.Embedder
	}{
		{src, &config.Embedder{Kind: "onnx"}},
		{"embedder: {kind: offline, semantic: {kind: none}}\n" + src, nil},
		{"embedder: {kind: codesearch}\n" + src, nil},
		{"embedder: {kind: offline, semantic: {kind: codesearch, model: m.bin}}\n" + src, &config.Embedder{Kind: "codesearch", Model: "m.bin"}},
	} {
		cfg, err := config.Parse([]byte(tt.yaml), dir, env(nil))
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.yaml, err)
		}
		if diff := cmp.Diff(tt.want, cfg.Embedder.Semantic); diff != "" {
			t.Errorf("Parse(%q) embedder.semantic (-want +got):\n%s", tt.yaml, diff)
		}
	}
}

// TestReplicationSettings: the consistency level follows the replication
// factor unless set, and bad values name their key.
func TestReplicationSettings(t *testing.T) {
	const sources = "sources:\n  - {name: payments, kind: git, path: repo}\n"
	tests := []struct {
		yaml       string
		wantFactor int
		wantLevel  string
		wantErr    string
	}{
		{yaml: "", wantFactor: 1, wantLevel: "ONE"},
		{yaml: "weaviate: {replication_factor: 3}", wantFactor: 3, wantLevel: "QUORUM"},
		{yaml: "weaviate: {replication_factor: 3, consistency_level: ONE}", wantFactor: 3, wantLevel: "ONE"},
		{yaml: "weaviate: {consistency_level: quorum}", wantFactor: 1, wantLevel: "QUORUM"},
		{yaml: "weaviate: {replication_factor: -1}", wantErr: "weaviate.replication_factor: must be at least 1 (the number of copies of each object), got -1"},
		{yaml: "weaviate: {consistency_level: MOST}", wantErr: `weaviate.consistency_level: got "MOST", want one of ONE, QUORUM, ALL`},
	}
	for _, tt := range tests {
		t.Run(tt.yaml, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tt.yaml+"\n"+sources), dir, env(nil))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Parse error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if w := cfg.Weaviate; w.ReplicationFactor != tt.wantFactor || w.ConsistencyLevel != tt.wantLevel {
				t.Errorf("replication_factor %d, consistency_level %q; want %d, %q", w.ReplicationFactor, w.ConsistencyLevel, tt.wantFactor, tt.wantLevel)
			}
		})
	}
}

// TestShardsKey: weaviate.shards is 0 (Weaviate's default, one shard per
// node) unless set; a negative count is refused, naming the key.
func TestShardsKey(t *testing.T) {
	const sources = "sources:\n  - {name: payments, kind: git, path: repo}\n"
	for _, tt := range []struct {
		yaml    string
		want    int
		wantErr string
	}{
		{yaml: "", want: 0},
		{yaml: "weaviate: {shards: 3}", want: 3},
		{yaml: "weaviate: {shards: -1}", wantErr: "weaviate.shards: must be 0 (one shard per node, Weaviate's default) or more, got -1"},
	} {
		cfg, err := config.Parse([]byte(tt.yaml+"\n"+sources), dir, env(nil))
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%q: Parse error = %v, want %q", tt.yaml, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: Parse: %v", tt.yaml, err)
		} else if cfg.Weaviate.Shards != tt.want {
			t.Errorf("%q: shards %d, want %d", tt.yaml, cfg.Weaviate.Shards, tt.want)
		}
	}
}

// TestVectorIndexKey: weaviate.vector_index is flat or hnsw, unset by
// default (the store then creates flat); anything else is refused, naming
// the key.
func TestVectorIndexKey(t *testing.T) {
	const sources = "sources:\n  - {name: payments, kind: git, path: repo}\n"
	for _, tt := range []struct{ yaml, want, wantErr string }{
		{yaml: "", want: ""},
		{yaml: "weaviate: {vector_index: flat}", want: "flat"},
		{yaml: "weaviate: {vector_index: hnsw}", want: "hnsw"},
		{yaml: "weaviate: {vector_index: HNSW}", wantErr: `weaviate.vector_index: must be flat (the default) or hnsw, got "HNSW"`},
		{yaml: "weaviate: {vector_index: dynamic}", wantErr: `weaviate.vector_index: must be flat (the default) or hnsw, got "dynamic"`},
	} {
		cfg, err := config.Parse([]byte(tt.yaml+"\n"+sources), dir, env(nil))
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%q: Parse error = %v, want %q", tt.yaml, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: Parse: %v", tt.yaml, err)
		} else if cfg.Weaviate.VectorIndex != tt.want {
			t.Errorf("%q: vector_index %q, want %q", tt.yaml, cfg.Weaviate.VectorIndex, tt.want)
		}
	}
}
