package config

import (
	"maps"
	"net/url"
	"slices"
	"time"
)

// OpenAI holds the settings of embedder kind "openai", an OpenAI-compatible
// POST {base_url}/embeddings (OpenAI, Ollama, vLLM, Hugging Face TEI). The
// model name is embedder.model. Inlined in Embedder.
type OpenAI struct {
	// BaseURL is the API root, e.g. "https://api.openai.com/v1" or
	// "http://localhost:11434/v1" (Ollama).
	BaseURL string `yaml:"base_url"`
	// APIKeyEnv names the environment variable holding the API key; empty
	// sends none (local Ollama, TEI). The key never appears in the file.
	APIKeyEnv string `yaml:"api_key_env"`
	// BatchSize is how many texts go in one request, 1..2048; 0 means 32
	// (openai.DefaultBatch).
	BatchSize int `yaml:"batch_size"`
	// Dimensions, when set, is requested from the model (OpenAI
	// text-embedding-3 models can shorten their vectors); 0 means the
	// model's own length.
	Dimensions int `yaml:"dimensions"`
	// Timeout bounds one request; 0 means 60s.
	Timeout time.Duration `yaml:"timeout"`
}

// Summary configures the optional LLM summary above the snippets, an
// OpenAI-compatible POST {base_url}/chat/completions. Off unless enabled.
type Summary struct {
	Enabled bool   `yaml:"enabled"`
	BaseURL string `yaml:"base_url"` // API root, e.g. "https://api.openai.com/v1"
	Model   string `yaml:"model"`    // chat model, e.g. "gpt-4o-mini"
	// APIKeyEnv names the environment variable holding the API key; empty
	// sends none.
	APIKeyEnv string `yaml:"api_key_env"`
	// Timeout bounds one request; 0 means 20s. A late summary is dropped and
	// the snippets go out alone.
	Timeout time.Duration `yaml:"timeout"`
}

// Thresholds decide "no coverage" for one embedder; see
// retrieval.Thresholds. Unset fields keep the built-in value.
type Thresholds struct {
	// MinSimilarity is the cosine similarity (0..1) a top hit must reach.
	MinSimilarity *float64 `yaml:"min_similarity"`
	// MinTermCoverage is the share (0..1) of the question's content terms a
	// top hit must contain.
	MinTermCoverage *float64 `yaml:"min_term_coverage"`
	// FloorSimilarity and FloorTermCoverage (0..1): below both, "no
	// coverage"; between them and the answer thresholds, "not sure".
	FloorSimilarity   *float64 `yaml:"floor_similarity"`
	FloorTermCoverage *float64 `yaml:"floor_term_coverage"`
	// MaxAbsentShare (0..1; 0 = off): refuse when more of the question's
	// weight is in words no chunk contains.
	MaxAbsentShare *float64 `yaml:"max_absent_share"`
}

// maxOpenAIBatch is OpenAI's limit of inputs per embeddings request (API
// reference, "Create embeddings").
const maxOpenAIBatch = 2048

// openai checks the OpenAI settings of the embedder e at path p: required
// for kind openai, refused for the other kinds.
func (v *validator) openai(p string, e Embedder) {
	if e.MaxInputTokens < 0 {
		v.bad(p+".max_input_tokens", "must be positive, or 0 for no limit, got %d", e.MaxInputTokens)
	}
	if e.Kind != "openai" {
		if e.OpenAI != (OpenAI{}) {
			v.bad(p+".base_url", "base_url, api_key_env, batch_size, dimensions and timeout are settings of kind openai, but kind is %q", e.Kind)
		}
		return
	}
	v.apiURL(p+".base_url", e.BaseURL)
	if e.Model == "" {
		v.bad(p+".model", `must name the embeddings model for kind openai, e.g. "text-embedding-3-small"`)
	}
	v.apiKeyEnv(p+".api_key_env", e.APIKeyEnv)
	if n := e.BatchSize; n < 0 || n > maxOpenAIBatch {
		v.bad(p+".batch_size", "must be 1..%d, or 0 for 32, got %d", maxOpenAIBatch, n)
	}
	if e.Dimensions < 0 {
		v.bad(p+".dimensions", "must be positive, or 0 for the model's own length, got %d", e.Dimensions)
	}
	if e.Timeout < 0 {
		v.bad(p+".timeout", "must be positive, got %s", e.Timeout)
	}
}

// summary checks retrieval.summary when it is enabled.
func (v *validator) summary() {
	s := v.c.Retrieval.Summary
	if !s.Enabled {
		return
	}
	v.apiURL("retrieval.summary.base_url", s.BaseURL)
	if s.Model == "" {
		v.bad("retrieval.summary.model", `must name the chat model, e.g. "gpt-4o-mini"`)
	}
	v.apiKeyEnv("retrieval.summary.api_key_env", s.APIKeyEnv)
	if s.Timeout < 0 {
		v.bad("retrieval.summary.timeout", "must be positive, got %s", s.Timeout)
	}
}

// thresholds checks retrieval.thresholds, in key order.
func (v *validator) thresholds() {
	for _, n := range slices.Sorted(maps.Keys(v.c.Retrieval.Thresholds)) {
		th := v.c.Retrieval.Thresholds[n]
		p := "retrieval.thresholds." + n
		if n == "" {
			v.bad("retrieval.thresholds", "keys are embedder names or families (as `ragbot eval` prints them), got an empty one")
		}
		for _, f := range []struct {
			field string
			val   *float64
		}{{".min_similarity", th.MinSimilarity}, {".min_term_coverage", th.MinTermCoverage},
			{".floor_similarity", th.FloorSimilarity}, {".floor_term_coverage", th.FloorTermCoverage}, {".max_absent_share", th.MaxAbsentShare}} {
			if f.val != nil && (*f.val < 0 || *f.val > 1) {
				v.bad(p+f.field, "must be between 0 and 1, got %g", *f.val)
			}
		}
	}
}

// apiURL checks an API root: an absolute http(s) URL without credentials.
func (v *validator) apiURL(field, u string) {
	p, err := url.Parse(u)
	switch {
	case u == "":
		v.bad(field, "must be set")
	case err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "":
		v.bad(field, "must be an absolute http(s) URL, got %q", redactURL(u))
	case p.User != nil:
		v.bad(field, "must not hold credentials; name the variable holding the key in api_key_env")
	}
}

// apiKeyEnv checks that a named key variable, if any, is set.
func (v *validator) apiKeyEnv(field, env string) {
	if env == "" {
		return
	}
	if key, ok := v.c.lookup()(env); !ok || key == "" {
		v.bad(field, "names %s, which is not set in the environment", env)
	}
}

// ThresholdsFor returns the configured thresholds of the embedder called
// name in family (unset fields nil): the entry keyed by name, else the one
// keyed by family (e.g. "codesearch-v1", whatever the model's hash), else the zero
// value.
func (r Retrieval) ThresholdsFor(name, family string) Thresholds {
	if th, ok := r.Thresholds[name]; ok {
		return th
	}
	return r.Thresholds[family]
}
