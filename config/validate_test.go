package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config"
)

// TestBadConfigs parses each testdata/config/bad-*.yaml file, one fault per
// file except bad-several.yaml, and checks the exact message.
func TestBadConfigs(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{
			file: "bad-duplicate-source-name.yaml",
			want: `sources[1].name: "payments" is already the name of sources[0]`,
		},
		{
			file: "bad-unknown-key.yaml",
			want: `sorces (line 4): unknown key; did you mean sources?`,
		},
		{
			file: "bad-unknown-nested-key.yaml",
			want: `weaviate.urll (line 3): unknown key; did you mean url?`,
		},
		{
			file: "bad-unknown-source-key.yaml",
			want: `sources[0].exclued (line 6): unknown key; did you mean exclude?`,
		},
		{
			file: "bad-unknown-key-far.yaml",
			want: `sources[0].owner (line 6): unknown key`,
		},
		{
			file: "bad-source-kind.yaml",
			want: `sources[0].kind: got "svn", want one of git, markdown, openapi, confluence, html`,
		},
		{
			file: "bad-missing-path.yaml",
			want: `sources[0].path: "no-such-folder" does not exist`,
		},
		{
			file: "bad-path-not-directory.yaml",
			want: `sources[0].path: "docs/README.md" is not a directory`,
		},
		{
			file: "bad-alpha.yaml",
			want: `retrieval.alpha: must be between 0 (BM25 only) and 1 (vectors only), got 1.5`,
		},
		{
			file: "bad-removed-static.yaml",
			want: `embedder.kind: "static" was removed from ragbot after commit b5f6b10: it measured no gain over the default (see docs/evaluation.md); ` +
				`use "offline" (the default, with the pretrained semantic vector of kind "onnx") or "openai"`,
		},
		{
			file: "bad-removed-expansion.yaml",
			want: `retrieval.expansion: query expansion "prf" was removed from ragbot after commit b5f6b10: none of prf, glove and wordnet measured a gain (see docs/evaluation.md); ` +
				`delete the key, or for questions worded unlike the code use retrieval.rewrite (the LLM query rewrite)`,
		},
		{
			file: "bad-weaviate-url.yaml",
			want: `weaviate.url: must be an absolute http(s) URL or empty for the embedded server, got "weaviate.local"`,
		},
		{
			file: "bad-weaviate-url-and-urls.yaml",
			want: `weaviate.urls: set either weaviate.url or weaviate.urls, not both`,
		},
		{
			file: "bad-weaviate-urls-twice.yaml",
			want: `weaviate.urls[1]: "http://w1.internal:8080" is listed twice`,
		},
		{
			file: "bad-weaviate-url-credentials.yaml",
			want: `weaviate.url: must not hold credentials; put the API key in the variable named by weaviate.api_key_env`,
		},
		{
			file: "bad-branch-on-markdown.yaml",
			want: `sources[1].branches: only git sources have branches`,
		},
		{
			file: "bad-include-on-markdown.yaml",
			want: `sources[0].include: only git sources have include; use exclude`,
		},
		{
			file: "bad-link-template.yaml",
			want: `sources[0].link_template: must contain {path}, got "https://git.example.com/payments/blob/{commit}#L{start}"`,
		},
		{
			file: "bad-link-placeholder.yaml",
			want: `sources[0].link_template: unknown placeholder {line}, want {commit}, {path}, {start} or {end}`,
		},
		{
			file: "bad-api-key-env.yaml",
			want: `weaviate.api_key_env: names RAGBOT_TEST_WEAVIATE_KEY, which is not set in the environment`,
		},
		{
			file: "bad-empty-sources.yaml",
			want: `sources: must list at least one source`,
		},
		{
			file: "bad-collection.yaml",
			want: `weaviate.collection: must be a Weaviate class name (an upper-case letter, then letters, digits or _), got "chunks"`,
		},
		{
			file: "bad-several.yaml",
			want: `weaviate.url: must be an absolute http(s) URL or empty for the embedded server, got "weaviate.local"
weaviate.port: must be 1..65530 (ports port..port+5 are used), got 70000
retrieval.alpha: must be between 0 (BM25 only) and 1 (vectors only), got -0.5
retrieval.top_k: must be 1..20, got 30
retrieval.candidates: must be top_k..200, got 10
sources[0].kind: got "svn", want one of git, markdown, openapi, confluence, html
sources[0].path: "no-such-folder" does not exist
sources[1].name: "payments" is already the name of sources[0]
sources[1].branches: only git sources have branches`,
		},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".yaml"), func(t *testing.T) {
			cfg, err := parseFile(t, tt.file, nil)
			if err == nil {
				t.Fatalf("%s parsed without error, want %q; sources: %+v", tt.file, tt.want, cfg.Sources)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("%s error mismatch (-want +got):\n%s", tt.file, diff)
			}
		})
	}
}

// TestParseErrors covers faults that need no file of their own.
func TestParseErrors(t *testing.T) {
	const sources = "sources: [{name: handbook, kind: markdown, path: docs}]\n"
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{
			name: "empty file",
			yaml: "",
			want: "sources: must list at least one source",
		},
		{
			name: "two unknown keys, one line each",
			yaml: "weaviate: {urll: x, prot: 1}\n" + sources,
			want: "weaviate.urll (line 1): unknown key; did you mean url?\n" +
				"weaviate.prot (line 1): unknown key; did you mean port?",
		},
		{
			name: "not YAML",
			yaml: "sources: [\n",
			want: "parse YAML: yaml: line 1: did not find expected node content",
		},
		{
			name: "an unknown key and a missing path, reported together",
			yaml: "sources: [{name: h, kind: markdown, path: nowhere, exclud: [drafts]}]\n",
			want: "sources[0].exclud (line 1): unknown key; did you mean exclude?\n" +
				`sources[0].path: "nowhere" does not exist`,
		},
		{
			name: "a wrong type and bad values, reported together: decoding's problems first",
			yaml: "weaviate:\n  timeout: soon\n  collection: my-chunks\nsources: [{name: h, kind: svn, path: docs}]\n",
			want: `weaviate.timeout (line 2): want a duration such as 60s, 10m or 24h, got "soon"` + "\n" +
				`weaviate.collection: must be a Weaviate class name (an upper-case letter, then letters, digits or _), got "my-chunks"` + "\n" +
				`sources[0].kind: got "svn", want one of git, markdown, openapi, confluence, html`,
		},
		{
			name: "a mistyped key is not reported again as the key it was meant for",
			yaml: "sources:\n  - name: h\n    kind: markdown\n    pth: docs\n  - name: g\n    kind: git\n    path: nowhere\n",
			want: "sources[0].pth (line 4): unknown key; did you mean path?\n" +
				`sources[1].path: "nowhere" does not exist`,
		},
		{
			name: "an unknown key with nothing close",
			yaml: "retrieval: {flux_capacitor: 1}\nsources: [{name: h, kind: markdown, path: docs, acl: x}]\n",
			want: "retrieval.flux_capacitor (line 1): unknown key\n" +
				`sources[0].acl (line 2): want a list, got "x"`,
		},
		{
			name: "bad duration",
			yaml: "weaviate: {timeout: soon}\n" + sources,
			want: `weaviate.timeout (line 1): want a duration such as 60s, 10m or 24h, got "soon"`,
		},
		{
			name: "negative timeout",
			yaml: "weaviate: {timeout: -1s}\n" + sources,
			want: "weaviate.timeout: must be positive, got -1s",
		},
		{
			name: "api_key_env without url",
			yaml: "weaviate: {api_key_env: WEAVIATE_KEY}\n" + sources,
			want: "weaviate.api_key_env: is only used with weaviate.url or weaviate.urls (a remote cluster)",
		},
		{
			name: "collection with a dash",
			yaml: "weaviate: {collection: My-Chunks}\n" + sources,
			want: `weaviate.collection: must be a Weaviate class name (an upper-case letter, then letters, digits or _), got "My-Chunks"`,
		},
		{
			name: "unknown embedder",
			yaml: "embedder: {kind: bert}\n" + sources,
			want: `embedder.kind: got "bert", want offline, openai, codesearch or onnx`,
		},
		{
			name: "semantic embedder of an unknown kind, nested",
			yaml: "embedder: {semantic: {kind: bert, semantic: {kind: offline}}}\n" + sources,
			want: `embedder.semantic.kind: got "bert", want offline, openai, codesearch or onnx` + "\n" +
				"embedder.semantic.semantic: there is one semantic embedder",
		},
		{
			name: "semantic openai embedder without model",
			yaml: "embedder: {semantic: {kind: openai, base_url: 'http://localhost:11434/v1', batch_size: -1}}\n" + sources,
			want: `embedder.semantic.model: must name the embeddings model for kind openai, e.g. "text-embedding-3-small"` + "\n" +
				"embedder.semantic.batch_size: must be 1..2048, or 0 for 32, got -1",
		},
		{
			name: "semantic weight out of range",
			yaml: "retrieval: {semantic_weight: 1.5}\n" + sources,
			want: "retrieval.semantic_weight: must be between 0 (lexical vector only) and 1 (semantic vector only), got 1.5",
		},
		{
			name: "model with the offline embedder",
			yaml: "embedder: {kind: offline, model: m.bin}\n" + sources,
			want: `embedder.model: model is a setting of the codesearch embedder (a model file), of kind onnx and of kind openai (a model name), but kind is "offline"`,
		},
		{
			name: "thresholds out of range, in field order",
			yaml: "retrieval: {thresholds: {offline-hash-v1-384: {min_similarity: 1.5, min_term_coverage: -1}}}\n" + sources,
			want: "retrieval.thresholds.offline-hash-v1-384.min_similarity: must be between 0 and 1, got 1.5\n" +
				"retrieval.thresholds.offline-hash-v1-384.min_term_coverage: must be between 0 and 1, got -1",
		},
		{
			name: "indexing",
			yaml: "indexing: {max_symbol_lines: 5, window_lines: 3, workers: -1}\n" + sources,
			want: "indexing.max_symbol_lines: must be at least 10, got 5\n" +
				"indexing.window_lines: must be 5..max_symbol_lines, got 3\n" +
				"indexing.workers: must be 0 (one per CPU) or more, got -1",
		},
		{
			name: "redaction globs and rule ids",
			yaml: "indexing: {redact_allow_paths: ['testdata/**', 'a/[b'], redact_disable_rules: [generic-api-key, Generic Key, generic-api-key]}\n" + sources,
			want: `indexing.redact_allow_paths[1]: "a/[b" is not a valid glob (doublestar syntax: "testdata/**", "**/*_test.go")` + "\n" +
				`indexing.redact_disable_rules[1]: "Generic Key" is not a gitleaks rule id (lower-case words joined by "-", like "generic-api-key")` + "\n" +
				`indexing.redact_disable_rules[2]: "generic-api-key" is listed twice`,
		},
		{
			name: "source without name, kind or path",
			yaml: "sources: [{acl: [everyone]}]\n",
			want: "sources[0].name: must not be empty\n" +
				`sources[0].kind: got "", want one of git, markdown, openapi, confluence, html` + "\n" +
				"sources[0].path: must not be empty",
		},
		{
			name: "source name with a pipe",
			yaml: "sources: [{name: a|b, kind: markdown, path: docs}]\n",
			want: `sources[0].name: must not contain '|' or a newline, got "a|b"`,
		},
		{
			name: "a third duplicate names the first",
			yaml: "sources: [{name: d, kind: markdown, path: docs}, {name: d, kind: markdown, path: docs}, {name: d, kind: markdown, path: docs}]\n",
			want: `sources[1].name: "d" is already the name of sources[0]` + "\n" +
				`sources[2].name: "d" is already the name of sources[0]`,
		},
		{
			name: "bad branch names",
			yaml: "sources: [{name: r, kind: git, path: repo, branches: ['', -x, 'a b', 'HEAD~1']}]\n",
			want: `sources[0].branches[0]: not a valid branch name: ""` + "\n" +
				`sources[0].branches[1]: not a valid branch name: "-x"` + "\n" +
				`sources[0].branches[2]: not a valid branch name: "a b"` + "\n" +
				`sources[0].branches[3]: not a valid branch name: "HEAD~1"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tt.yaml), dir, env(nil))
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want error %q", tt.yaml, tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("Parse(%q) error mismatch (-want +got):\n%s", tt.yaml, diff)
			}
		})
	}
}

// TestWeaviateURLSecrets checks that a rejected URL never shows its password.
func TestWeaviateURLSecrets(t *testing.T) {
	const sources = "sources: [{name: handbook, kind: markdown, path: docs}]\n"
	tests := []struct {
		url  string
		want string
	}{
		{
			url:  "https://admin:hunter2@weaviate.internal:8080",
			want: "weaviate.url: must not hold credentials; put the API key in the variable named by weaviate.api_key_env",
		},
		{
			url:  "ftp://admin:hunter2@weaviate.internal",
			want: `weaviate.url: must be an absolute http(s) URL or empty for the embedded server, got "ftp://xxxxx@weaviate.internal"`,
		},
		{
			url:  "admin:hunter2@weaviate.internal:8080",
			want: `weaviate.url: must be an absolute http(s) URL or empty for the embedded server, got "xxxxx@weaviate.internal:8080"`,
		},
		{
			url:  "http://admin:hunter2@weaviate internal",
			want: `weaviate.url: must be an absolute http(s) URL or empty for the embedded server, got "http://xxxxx@weaviate internal"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			_, err := config.Parse([]byte("weaviate: {url: '"+tt.url+"'}\n"+sources), dir, env(nil))
			if err == nil {
				t.Fatalf("Parse accepted weaviate.url %q", tt.url)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %q leaks the password", err)
			}
		})
	}
}

// TestValidateZero checks that Validate on a Config that did not come from
// Load reports the missing values instead of panicking.
func TestValidateZero(t *testing.T) {
	err := new(config.Config).Validate()
	want := `weaviate.port: must be 1..65530 (ports port..port+5 are used), got 0
weaviate.replication_factor: must be at least 1 (the number of copies of each object), got 0
weaviate.consistency_level: got "", want one of ONE, QUORUM, ALL
weaviate.collection: must be a Weaviate class name (an upper-case letter, then letters, digits or _), got ""
embedder.kind: got "", want offline, openai, codesearch or onnx
retrieval.alpha: must be set
retrieval.top_k: must be 1..20, got 0
indexing.max_symbol_lines: must be at least 10, got 0
indexing.window_lines: must be 5..max_symbol_lines, got 0
sources: must list at least one source
serve.listen: must be host:port, e.g. 127.0.0.1:8080 or :8080, got ""
serve.shutdown_timeout: must be positive, got 0s
serve.max_concurrent_answers: must be at least 1, got 0
serve.answer_queue_length: must be at least 1, got 0
serve.answer_queue_wait: must be positive and shorter than slack.answer_timeout (0s), got 0s
slack.mode: got "", want socket or http
slack.api_url: must be an absolute http(s) URL without credentials, got ""
slack.bot_token_env: must be an environment variable name, got ""
slack.app_token_env: must be an environment variable name, got ""
slack.signing_secret_env: must be an environment variable name, got ""
slack.command: must be "/" and up to 31 lower-case letters, digits, - or _, got ""
slack.answer_timeout: must be between 0 and 30m (the life of a response_url), got 0s
feedback.retention: want a positive duration such as 24h, 90m or 7d, got ""`
	if err == nil {
		t.Fatalf("Validate() = nil, want %q", want)
	}
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("Validate() error mismatch (-want +got):\n%s", diff)
	}
}

// TestSourceIDs: the configured sources' ids in order, and by name, the
// first of two sources with one name.
func TestSourceIDs(t *testing.T) {
	cfg := &config.Config{Sources: []config.Source{
		{Name: "app", Kind: config.KindGit}, {Name: "wiki", Kind: config.KindConfluence},
		{Name: "api", Kind: config.KindOpenAPI}, {Name: "app", Kind: config.KindMarkdown},
	}}
	if diff := cmp.Diff([]string{"repo:app", "confluence:wiki", "openapi:api", "docs:app"}, cfg.SourceIDs()); diff != "" {
		t.Errorf("SourceIDs (-want +got):\n%s", diff)
	}
	want := map[string]string{"app": "repo:app", "wiki": "confluence:wiki", "api": "openapi:api"}
	if diff := cmp.Diff(want, cfg.SourceIDsByName()); diff != "" {
		t.Errorf("SourceIDsByName (-want +got):\n%s", diff)
	}
}
