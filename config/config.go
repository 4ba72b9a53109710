// Package config reads ragbot.yaml: strict YAML decoding, defaults, environment
// overrides, then a validation pass that reports every problem with its YAML
// path. Other packages receive the resulting plain structs from cmd/ragbot.
package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Config is the whole of ragbot.yaml. Relative paths in it are resolved
// against the directory of the file by Load.
type Config struct {
	Weaviate   Weaviate   `yaml:"weaviate"`
	Embedder   Embedder   `yaml:"embedder"`
	Retrieval  Retrieval  `yaml:"retrieval"`
	Indexing   Indexing   `yaml:"indexing"`
	Sources    []Source   `yaml:"sources"`
	Serve      Serve      `yaml:"serve"`  // ragbot serve's HTTP server (slack.go)
	Slack      Slack      `yaml:"slack"`  // the Slack app (slack.go)
	Access     Access     `yaml:"access"` // which sources each chat channel may see (slack.go)
	Teams      Teams      `yaml:"teams"`  // the Microsoft Teams bot (teams.go)
	slackSet   bool       // the file has a slack section (see SlackEnabled)
	dir        string     // directory of the file, for relative paths
	envApplied []envField // which fields came from the environment, for messages
	// lookupEnv reads the environment for Validate (weaviate.api_key_env);
	// nil means os.LookupEnv.
	lookupEnv func(string) (string, bool)

	// Feedback says how long votes are kept (feedback.go).
	Feedback Feedback `yaml:"feedback"`
}

// Weaviate says where the vector database is.
type Weaviate struct {
	// URL of an existing Weaviate (cluster), e.g. "https://weaviate.internal:8080".
	// Empty means the embedded default: ragbot starts the local weaviate-server.
	URL string `yaml:"url"`
	// URLs, instead of URL, lists several nodes of one Weaviate cluster,
	// e.g. every node's own address: ragbot talks to the first that
	// answers and fails over to the next when it cannot connect (any node
	// coordinates replicated reads and writes). Use URL for a load
	// balancer in front of the nodes.
	URLs []string `yaml:"urls"`
	// DataDir holds the local server's data; default ".ragbot/weaviate".
	DataDir string `yaml:"data_dir"`
	// APIKeyEnv names the environment variable holding an API key for URL; the
	// key itself never appears in the file.
	APIKeyEnv string `yaml:"api_key_env"`
	// Binary is the weaviate-server executable; empty searches $PATH, $GOBIN
	// and $(go env GOPATH)/bin.
	Binary string `yaml:"binary"`
	// Port is the local server's HTTP port; default 8079. Its gRPC, gossip and
	// Raft ports are Port+1 .. Port+5 (they must stay fixed for one data dir).
	Port int `yaml:"port"`
	// Collection is the Weaviate class of chunks; default "Chunk".
	Collection string `yaml:"collection"`
	// Timeout bounds each request to Weaviate; default 60s.
	Timeout time.Duration `yaml:"timeout"`
	// ReplicationFactor is how many copies of each object a multi-node
	// Weaviate keeps (Weaviate docs, "Replication"): the
	// replicationConfig.factor of the collections ragbot creates; an
	// existing collection with another factor is an error. At most the
	// cluster's node count; default 1.
	ReplicationFactor int `yaml:"replication_factor"`
	// ConsistencyLevel is how many replicas must answer a read or
	// acknowledge a write: ONE, QUORUM or ALL (Weaviate docs,
	// "Consistency"); default QUORUM when ReplicationFactor > 1, else ONE.
	ConsistencyLevel string `yaml:"consistency_level"`
	// Shards is how many shards the chunk collection is created with: its
	// shardingConfig.desiredCount (Weaviate docs, "Cluster Configuration":
	// immutable once created; shards are spread over the nodes, several on
	// one node when there are more shards than nodes). 0, the default,
	// sends none and Weaviate creates one shard per node of the cluster at
	// that time (one on a single node), as ragbot always did; an existing
	// collection is only checked against a value set here.
	Shards int `yaml:"shards"`
	// VectorIndex is the vector index type of the chunk collection's two
	// named vectors when it is created: "flat" (the default) or "hnsw"
	// (Weaviate docs, "Vector index": flat is an exact brute-force scan
	// whose time grows with the vectors, HNSW an approximate graph kept in
	// memory, slower to build; a filtered search that allows fewer than
	// flatSearchCutoff, 40,000, objects is answered by a flat scan under
	// HNSW too). hnsw pays above about 100,000 chunks. Immutable once
	// created; an existing collection is only checked against a value set
	// here. docs/deploy.md, "Sizing", has the measurements.
	VectorIndex string `yaml:"vector_index"`
}

// Endpoints is the Weaviate to use: URLs, or URL alone, or none (nil) for
// the embedded server.
func (w Weaviate) Endpoints() []string {
	if len(w.URLs) > 0 {
		return w.URLs
	}
	if w.URL != "" {
		return []string{w.URL}
	}
	return nil
}

// Embedder selects how vectors are made.
type Embedder struct {
	// Kind is "offline" (default: code-aware feature hashing, no network),
	// "codesearch" (offline: a neural bag-of-words encoder trained on doc
	// comment and code pairs; embed.CodeSearch) or "openai" (an
	// OpenAI-compatible /v1/embeddings endpoint: OpenAI, Ollama, vLLM, TEI;
	// openai.Embedder) or "onnx" (a pretrained transformer sentence
	// encoder run in process by ONNX Runtime; transformer.Embedder,
	// installed by scripts/install-model.sh). "static" was removed
	// (removed.go).
	Kind string `yaml:"kind"`
	// Model is the codesearch embedder's model file
	// (scripts/train-codesearch.sh writes one; empty means the built-in
	// one), for kind onnx one of transformer.Names() (empty means
	// transformer.DefaultModel), or, for kind openai, the model name
	// ("text-embedding-3-small").
	Model string `yaml:"model"`
	// RemovedAdapt is the removed embedder.adapt (refining the model on
	// the indexed sources), kept only for its error (removed.go).
	RemovedAdapt bool `yaml:"adapt"`
	// MaxInputTokens is the longest text the embedder accepts, in tokens;
	// a chunk over it is embedded from a prefix that fits (counted at 3
	// bytes a token) and stored whole. Default: 8192 for kind openai
	// (OpenAI's embedding models; API reference, "Create embeddings"; set
	// it lower for a local model with a shorter context, e.g. 512 for many
	// BERT-sized models served by TEI), 0 (no limit) for offline and
	// codesearch, which read texts of any length.
	MaxInputTokens int `yaml:"max_input_tokens"`
	// OpenAI holds kind openai's other settings (retrieval.go).
	OpenAI `yaml:",inline"`
	// Semantic, when set, is a second embedder whose vectors are stored
	// beside this one's as the named vector "semantic" and searched with
	// them (hybrid over both vectors plus BM25; docs/embedders.md).
	// Unset with kind offline, it is the pretrained sentence encoder of
	// kind onnx (DefaultSemanticKind); kind "none" turns it off.
	// It takes the keys above (kind, model, max_input_tokens and kind
	// openai's settings) except semantic. Changing it re-embeds
	// only the semantic vectors at the next `ragbot index`.
	Semantic *Embedder `yaml:"semantic"`
	// QueryTimeout, under embedder.semantic only, is the budget of
	// embedding one question with it (ask and serve): past it, or while
	// its circuit breaker is open after repeated failures, the question
	// is answered from BM25 and the lexical vector, with the warning
	// "semantic search unavailable: answered from keywords". 0 (unset)
	// means DefaultSemanticQueryTimeout; at most MaxSemanticQueryTimeout.
	QueryTimeout time.Duration `yaml:"query_timeout"`
}

// Retrieval holds query-time settings.
type Retrieval struct {
	// Alpha weights the vector side of hybrid search, 0 (BM25 only) to 1
	// (vectors only); unset means 0.5 (DefaultAlpha), 0.6 with a semantic
	// embedder of kind onnx (TransformerAlpha). A pointer, because 0 is
	// meaningful.
	Alpha *float64 `yaml:"alpha"`
	// TopK is how many snippets an answer shows; default 5.
	TopK int `yaml:"top_k"`
	// Candidates is how many hybrid hits are fetched before reranking; default 40.
	Candidates int `yaml:"candidates"`
	// SemanticWeight is the share (0..1) of the semantic vector in the
	// vector side of hybrid search when embedder.semantic is set; the
	// lexical vector has the rest. Unset means DefaultSemanticWeight,
	// TransformerSemanticWeight with a semantic embedder of kind onnx. A
	// pointer, because 0 is meaningful.
	SemanticWeight *float64 `yaml:"semantic_weight"`
	// Thresholds decide "no coverage", per embedder name or family (as
	// `ragbot eval` prints them, e.g. "offline-hash-v1-384", or
	// "codesearch-v1" for every codesearch model): similarities of different
	// embedders are on different scales. An entry for the exact name wins
	// over one for the family; an embedder without either uses
	// retrieval.DefaultThresholds. See Thresholds (retrieval.go).
	Thresholds map[string]Thresholds `yaml:"thresholds"`
	// Summary configures the optional LLM summary (retrieval.go).
	Summary Summary `yaml:"summary"`
	// Rewrite configures the optional LLM query rewriting (rewrite.go).
	Rewrite Rewrite `yaml:"rewrite"`
	// RemovedExpansion is the removed retrieval.expansion (query
	// expansion), kept only for its error (removed.go).
	RemovedExpansion []string `yaml:"expansion"`
}

// Indexing holds index-time settings.
type Indexing struct {
	// MaxSymbolLines is the longest symbol kept as one chunk, in lines; default 150.
	MaxSymbolLines int `yaml:"max_symbol_lines"`
	// WindowLines is the window size for split symbols and unparsed files, in lines; default 60.
	WindowLines int `yaml:"window_lines"`
	// Workers is how many files are chunked at once; default the number of CPUs.
	Workers int `yaml:"workers"`
	// ReposDir holds the clones of remote git sources (sources[].url) and
	// the per-source lock files; default ".ragbot/repos".
	ReposDir string `yaml:"repos_dir"`
	// Redact replaces every secret that gitleaks' default rules find in
	// indexed text (code, markdown, Confluence sections, API operations)
	// with "[redacted: RULE]" before it is embedded or stored; default true
	// (see RedactOn).
	Redact *bool `yaml:"redact"`
	// RedactAllowPaths are globs (doublestar syntax: "testdata/**") of paths
	// as cited (repository-relative file, page path, spec file name) whose
	// text is not scanned: known test fixtures whose fake keys are kept.
	RedactAllowPaths []string `yaml:"redact_allow_paths"`
	// RedactDisableRules are gitleaks rule ids ("generic-api-key") to
	// switch off.
	RedactDisableRules []string `yaml:"redact_disable_rules"`
}

// RedactOn reports whether indexing.redact is on (unset means on).
func (ix Indexing) RedactOn() bool { return ix.Redact == nil || *ix.Redact }

// Source kinds.
const (
	KindGit      = "git"
	KindMarkdown = "markdown"
	KindOpenAPI  = "openapi" // an OpenAPI 3.x or Swagger 2.0 file (JSON or YAML); path names the file
	// KindConfluence is Confluence spaces read over REST (url, spaces; confluence.go).
	KindConfluence = "confluence"
	// KindHTML is a folder of Confluence HTML exports (path; confluence.go).
	KindHTML = "html"
)

// Source is one entry of "sources".
type Source struct {
	// Name is unique; shown in citations; eval matches it to a question's corpus.
	Name string `yaml:"name"`
	// Kind is "git" (a local repository), "markdown" (a folder of .md files),
	// "openapi", "confluence" (spaces over REST) or "html" (a folder of
	// Confluence HTML exports).
	Kind string `yaml:"kind"`
	// Path is the repository root or the docs folder.
	Path string `yaml:"path"`
	// Branches to index, for git; default the checked-out branch.
	Branches []string `yaml:"branches"`
	// Include, for git, limits indexing to paths under these prefixes; empty means all.
	Include []string `yaml:"include"`
	// Exclude drops paths under these prefixes (after Include); in git and
	// markdown sources an entry with * ? [ or { is a glob over the path
	// ("config/secrets/*.yml", "**/fixtures/**"; doublestar syntax), which
	// drops the paths it matches and everything under them.
	Exclude []string `yaml:"exclude"`
	// LinkTemplate builds deep links: {commit}, {path}, {start}, {end} are
	// replaced, e.g. "https://github.com/org/repo/blob/{commit}/{path}#L{start}-L{end}".
	// Empty means no link. A markdown source inside a git work tree links
	// its files that are unchanged at HEAD, {path} being the path in the
	// repository; without its own link_template or link_preset it takes
	// those of the git source whose path holds the folder.
	LinkTemplate string `yaml:"link_template"`
	// ACL lists the groups allowed to see this source; empty means everyone.
	ACL []string `yaml:"acl"`
	// URL is the Confluence site's base URL, for confluence sources:
	// "https://acme.atlassian.net/wiki" or "https://conf.example.com[/context]";
	// for git sources, a remote repository to clone instead of Path (git.go).
	URL string `yaml:"url"`
	// Confluence holds the other confluence settings (confluence.go).
	Confluence `yaml:",inline"`
	// Git holds the other git settings (git.go); git sources also use url
	// and token_env.
	Git `yaml:",inline"`
}

// Default values, applied by Load to unset fields.
const (
	DefaultDataDir    = ".ragbot/weaviate"
	DefaultPort       = 8079
	DefaultCollection = "Chunk"
	DefaultTimeout    = 60 * time.Second
	DefaultAlpha      = 0.5
	// DefaultSemanticQueryTimeout is embedder.semantic.query_timeout: a
	// hosted embeddings API answers one short text in well under a second.
	DefaultSemanticQueryTimeout = 2 * time.Second
	// MaxSemanticQueryTimeout bounds it: the budget must leave the answer
	// time (serve.answer_timeout, 30 s by default) for the search itself.
	MaxSemanticQueryTimeout = 10 * time.Second
	// DefaultSemanticWeight is retrieval.semantic_weight; docs/evaluation.md,
	// "Semantic weight", gives the leave-one-corpus-out measurement behind it.
	DefaultSemanticWeight = 0.5
	// TransformerAlpha and TransformerSemanticWeight are retrieval.alpha
	// and retrieval.semantic_weight when embedder.semantic is of kind onnx
	// (a pretrained sentence encoder): its vector earns more of the
	// ranking than the codesearch encoder's. Chosen leave-one-corpus-out
	// on the held-out sets (testdata/eval/heldout) over alpha 0.4..0.8 and
	// weight 0.5..1.0, and checked on sets none of them was chosen on
	// (docs/evaluation.md, "A pretrained sentence encoder").
	TransformerAlpha          = 0.6
	TransformerSemanticWeight = 0.8
	// DefaultSemanticKind is embedder.semantic.kind when embedder.kind is
	// offline and embedder.semantic is unset: a pretrained sentence
	// encoder run in process (kind onnx, model transformer.DefaultModel,
	// all-MiniLM-L6-v2 int8; retrieval/embed/transformer/PROVENANCE.md),
	// the default because it found more of the questions asked in a
	// newcomer's own words than the codesearch encoder (61 of 115 against
	// 44, higher or equal on each set), the ordinary ones as before on the
	// public set, the generated benchmark and the fresh sets, and one
	// fewer in two kinds of the held-out sets (docs/evaluation.md, "A
	// pretrained sentence encoder: candidates side by side").
	DefaultSemanticKind = "onnx"
	DefaultTopK         = 5
	DefaultCandidates   = 40
	DefaultMaxSymbol    = 150
	// DefaultOpenAIMaxInputTokens is embedder.max_input_tokens for kind
	// openai: the input limit of OpenAI's embedding models.
	DefaultOpenAIMaxInputTokens = 8192
	DefaultWindow               = 60
	DefaultReposDir             = ".ragbot/repos"
)

// Load reads the YAML file at path strictly (unknown keys are errors), fills
// defaults, applies RAGBOT_* environment overrides (see Env) and validates.
// The error lists every problem found, each with its YAML path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := Parse(data, filepath.Dir(abs), os.LookupEnv)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Parse is Load on bytes: dir resolves relative paths and lookupEnv reads the
// environment (os.LookupEnv in production, a map in tests).
func Parse(data []byte, dir string, lookupEnv func(string) (string, bool)) (*Config, error) {
	var cfg Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	// A file that is YAML but has unknown keys or values of the wrong type
	// decodes all the rest (yaml.v3 collects those as one *yaml.TypeError
	// and goes on), so it is validated too and every problem is reported in
	// one go. Only a file that is not YAML stops here.
	var problems []decodeProblem
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, fmt.Errorf("parse YAML: %w", err)
		}
		problems = decodeProblems(te, data)
	}
	cfg.dir = dir
	cfg.lookupEnv = lookupEnv
	cfg.slackSet = hasTopKey(data, "slack")
	cfg.applyDefaults()
	errs := make([]error, 0, len(problems))
	for _, p := range problems {
		errs = append(errs, p.err)
	}
	if err := cfg.applyEnv(lookupEnv); err != nil {
		return nil, errors.Join(append(errs, err)...)
	}
	if err := cfg.Validate(); err != nil {
		errs = append(errs, withoutRepeats(err, problems)...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &cfg, nil
}

func (c *Config) applyDefaults() {
	w := &c.Weaviate
	w.DataDir = cmp.Or(w.DataDir, DefaultDataDir)
	w.Port = cmp.Or(w.Port, DefaultPort)
	w.Collection = cmp.Or(w.Collection, DefaultCollection)
	w.Timeout = cmp.Or(w.Timeout, DefaultTimeout)
	w.ReplicationFactor = cmp.Or(w.ReplicationFactor, 1)
	w.ConsistencyLevel = strings.ToUpper(w.ConsistencyLevel)
	if w.ConsistencyLevel == "" {
		w.ConsistencyLevel = "ONE"
		if w.ReplicationFactor > 1 {
			w.ConsistencyLevel = "QUORUM"
		}
	}
	c.Embedder.Kind = cmp.Or(c.Embedder.Kind, "offline")
	if c.Embedder.Kind == "openai" && c.Embedder.MaxInputTokens == 0 {
		c.Embedder.MaxInputTokens = DefaultOpenAIMaxInputTokens
	}
	switch sem := c.Embedder.Semantic; {
	case sem == nil && c.Embedder.Kind == "offline":
		c.Embedder.Semantic = &Embedder{Kind: DefaultSemanticKind}
	case sem != nil && sem.Kind == "none":
		c.Embedder.Semantic = nil
	}
	if sem := c.Embedder.Semantic; sem != nil && sem.Kind == "openai" && sem.MaxInputTokens == 0 {
		sem.MaxInputTokens = DefaultOpenAIMaxInputTokens
	}
	r := &c.Retrieval
	alpha, weight := DefaultAlpha, DefaultSemanticWeight
	if sem := c.Embedder.Semantic; sem != nil && sem.Kind == "onnx" {
		alpha, weight = TransformerAlpha, TransformerSemanticWeight
	}
	if r.Alpha == nil {
		r.Alpha = &alpha
	}
	r.TopK = cmp.Or(r.TopK, DefaultTopK)
	r.Candidates = cmp.Or(r.Candidates, DefaultCandidates)
	if r.SemanticWeight == nil {
		r.SemanticWeight = &weight
	}
	c.Indexing.MaxSymbolLines = cmp.Or(c.Indexing.MaxSymbolLines, DefaultMaxSymbol)
	c.Indexing.WindowLines = cmp.Or(c.Indexing.WindowLines, DefaultWindow)
	c.Indexing.ReposDir = cmp.Or(c.Indexing.ReposDir, DefaultReposDir)
	c.applyChatDefaults()
	c.applyTeamsDefaults()
	c.applyConfluenceDefaults()
	c.Feedback.Retention = cmp.Or(c.Feedback.Retention, DefaultFeedbackRetention)
}

// Resolve returns p made absolute against the config file's directory.
func (c *Config) Resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.dir, p)
}
