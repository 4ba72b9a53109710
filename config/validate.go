package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Validate checks the whole config and returns every problem joined into one
// error, one line each, each starting with the field's YAML path, e.g.
// `sources[1].kind: got "svn", want one of git, markdown`.
func (c *Config) Validate() error {
	var errs []error
	bad := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s%s: %s", path, c.from(path), fmt.Sprintf(format, args...)))
	}
	if u := c.Weaviate.URL; u != "" {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			bad("weaviate.url", "must be an absolute http(s) URL or empty for the embedded server, got %q", u)
		} else if p.User != nil {
			bad("weaviate.url", "must not hold credentials; put the API key in the variable named by weaviate.api_key_env")
		}
	}
	if env := c.Weaviate.APIKeyEnv; env != "" {
		if c.Weaviate.URL == "" {
			bad("weaviate.api_key_env", "is only used with weaviate.url (a remote cluster)")
		} else if _, ok := os.LookupEnv(env); !ok {
			bad("weaviate.api_key_env", "names %s, which is not set in the environment", env)
		}
	}
	if p := c.Weaviate.Port; p < 1 || p > 65535-5 {
		bad("weaviate.port", "must be 1..65530 (ports port..port+5 are used), got %d", p)
	}
	if c.Weaviate.Timeout < 0 {
		bad("weaviate.timeout", "must be positive, got %s", c.Weaviate.Timeout)
	}
	if col := c.Weaviate.Collection; col[0] < 'A' || col[0] > 'Z' {
		bad("weaviate.collection", "must start with an upper-case letter (a Weaviate class name), got %q", col)
	}
	switch c.Embedder.Kind {
	case "offline":
	case "openai":
		bad("embedder.kind", `"openai" is not available yet; use "offline"`)
	default:
		bad("embedder.kind", "got %q, want offline", c.Embedder.Kind)
	}
	if a := *c.Retrieval.Alpha; a < 0 || a > 1 {
		bad("retrieval.alpha", "must be between 0 (BM25 only) and 1 (vectors only), got %g", a)
	}
	if k := c.Retrieval.TopK; k < 1 || k > 20 {
		bad("retrieval.top_k", "must be 1..20, got %d", k)
	}
	if n := c.Retrieval.Candidates; n < c.Retrieval.TopK || n > 200 {
		bad("retrieval.candidates", "must be top_k..200, got %d", n)
	}
	for name, v := range map[string]*float64{
		"retrieval.thresholds.min_similarity":    c.Retrieval.Thresholds.MinSimilarity,
		"retrieval.thresholds.min_term_coverage": c.Retrieval.Thresholds.MinTermCoverage,
	} {
		if v != nil && (*v < 0 || *v > 1) {
			bad(name, "must be between 0 and 1, got %g", *v)
		}
	}
	if n := c.Indexing.MaxSymbolLines; n < 10 {
		bad("indexing.max_symbol_lines", "must be at least 10, got %d", n)
	}
	if n := c.Indexing.WindowLines; n < 5 || n > c.Indexing.MaxSymbolLines {
		bad("indexing.window_lines", "must be 5..max_symbol_lines, got %d", n)
	}
	if n := c.Indexing.Workers; n < 0 {
		bad("indexing.workers", "must be 0 (one per CPU) or more, got %d", n)
	}
	if len(c.Sources) == 0 {
		bad("sources", "must list at least one source")
	}
	seen := map[string]int{}
	for i, s := range c.Sources {
		p := fmt.Sprintf("sources[%d]", i)
		switch {
		case s.Name == "":
			bad(p+".name", "must not be empty")
		case strings.ContainsAny(s.Name, "|\n"):
			bad(p+".name", "must not contain '|' or a newline, got %q", s.Name)
		default:
			if j, dup := seen[s.Name]; dup {
				bad(p+".name", "%q is already the name of sources[%d]", s.Name, j)
			}
			seen[s.Name] = i
		}
		switch s.Kind {
		case KindGit, KindMarkdown:
		default:
			bad(p+".kind", "got %q, want one of git, markdown", s.Kind)
		}
		if s.Path == "" {
			bad(p+".path", "must not be empty")
		} else if st, err := os.Stat(c.Resolve(s.Path)); err != nil || !st.IsDir() {
			bad(p+".path", "%q is not a directory", s.Path)
		}
		if s.Kind != KindGit && len(s.Branches) > 0 {
			bad(p+".branches", "only git sources have branches")
		}
		for j, b := range s.Branches {
			if b == "" || strings.HasPrefix(b, "-") || strings.ContainsAny(b, " ~^:?*[\\") {
				bad(fmt.Sprintf("%s.branches[%d]", p, j), "not a valid branch name: %q", b)
			}
		}
		if t := s.LinkTemplate; t != "" && !strings.Contains(t, "{path}") {
			bad(p+".link_template", "must contain {path}, got %q", t)
		}
	}
	return errors.Join(errs...)
}

// SourceID returns the stable chunk source id of s: "repo:<name>" for git,
// "docs:<name>" for markdown folders (design.md, "The chunk").
func (s Source) SourceID() string {
	if s.Kind == KindGit {
		return "repo:" + s.Name
	}
	return "docs:" + s.Name
}

// SourceNamed returns the source called name, or false.
func (c *Config) SourceNamed(name string) (Source, bool) {
	for _, s := range c.Sources {
		if s.Name == name {
			return s, true
		}
	}
	return Source{}, false
}
