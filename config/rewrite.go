package config

import (
	"cmp"
	"time"
)

// Rewrite configures the optional LLM query rewriting before retrieval, an
// OpenAI-compatible POST {base_url}/chat/completions: a standalone form of
// a thread follow-up, alternative phrasings with likely code terms, and a
// hypothetical snippet (HyDE), each searched beside the question and fused
// with its hits. Off unless enabled. Empty base_url, model and api_key_env
// are retrieval.summary's.
type Rewrite struct {
	Enabled   bool   `yaml:"enabled"`
	BaseURL   string `yaml:"base_url"`    // API root; "" means retrieval.summary.base_url
	Model     string `yaml:"model"`       // chat model; "" means retrieval.summary.model
	APIKeyEnv string `yaml:"api_key_env"` // env var holding the key; "" means retrieval.summary.api_key_env
	// Timeout bounds the rewrite of one question; 0 means 2s. A later
	// rewrite is dropped and the question searched alone.
	Timeout time.Duration `yaml:"timeout"`
	// Variants is how many alternative phrasings are searched, 1..5; 0
	// means 3.
	Variants int `yaml:"variants"`
	// HyDE also searches a hypothetical code snippet by its vector; unset
	// means true.
	HyDE *bool `yaml:"hyde"`
}

// maxRewriteVariants matches retrieval/openai.MaxRewriteVariants.
const maxRewriteVariants = 5

// maxRewriteTimeout: a person waits for the answer, and the chat surfaces
// give the whole search DefaultAnswerTimeout.
const maxRewriteTimeout = 10 * time.Second

// RewriteEndpoint returns the rewriter's base URL, model and key variable:
// retrieval.rewrite's, each empty one taken from retrieval.summary.
func (r Retrieval) RewriteEndpoint() (baseURL, model, apiKeyEnv string) {
	rw, s := r.Rewrite, r.Summary
	return cmp.Or(rw.BaseURL, s.BaseURL), cmp.Or(rw.Model, s.Model), cmp.Or(rw.APIKeyEnv, s.APIKeyEnv)
}

// rewrite checks retrieval.rewrite when it is enabled.
func (v *validator) rewrite() {
	rw := v.c.Retrieval.Rewrite
	if !rw.Enabled {
		return
	}
	base, model, keyEnv := v.c.Retrieval.RewriteEndpoint()
	if base == "" {
		v.bad("retrieval.rewrite.base_url", "must be set (here or in retrieval.summary.base_url)")
	} else {
		v.apiURL("retrieval.rewrite.base_url", base)
	}
	if model == "" {
		v.bad("retrieval.rewrite.model", `must name the chat model (here or in retrieval.summary.model), e.g. "gpt-4o-mini"`)
	}
	v.apiKeyEnv("retrieval.rewrite.api_key_env", keyEnv)
	if rw.Timeout < 0 || rw.Timeout > maxRewriteTimeout {
		v.bad("retrieval.rewrite.timeout", "must be positive and at most %s, or 0 for 2s, got %s", maxRewriteTimeout, rw.Timeout)
	}
	if n := rw.Variants; n < 0 || n > maxRewriteVariants {
		v.bad("retrieval.rewrite.variants", "must be 1..%d, or 0 for 3, got %d", maxRewriteVariants, n)
	}
}
