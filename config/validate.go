package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ragbot/ragbot/internal/suggest"
)

// Validate checks the whole config and returns every problem joined into one
// error, one line each, each starting with the field's YAML path, e.g.
// `sources[1].kind: got "svn", want one of git, markdown, openapi, confluence, html`. It expects the
// defaults of Load to be filled in; a field that defaults (such as
// retrieval.alpha) is reported as missing if it is not.
func (c *Config) Validate() error {
	v := validator{c: c}
	v.weaviate()
	v.retrieval()
	v.thresholds()
	v.summary()
	v.rewrite()
	v.indexing()
	v.sources()
	v.chat()
	v.teams()
	v.feedback()
	return errors.Join(v.errs...)
}

// validator collects the problems of one Config.
type validator struct {
	c    *Config
	errs []error
}

// bad records a problem with the field at path, naming the environment
// variable the value came from, if any.
func (v *validator) bad(path, format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf("%s%s: %s", path, v.c.from(path), fmt.Sprintf(format, args...)))
}

// className is what Weaviate accepts as a class (collection) name.
var className = regexp.MustCompile(`^[A-Z][_0-9A-Za-z]*$`)

func (v *validator) weaviate() {
	w := v.c.Weaviate
	checkURL := func(path, u string) {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			v.bad(path, "must be an absolute http(s) URL or empty for the embedded server, got %q", redactURL(u))
		} else if p.User != nil {
			v.bad(path, "must not hold credentials; put the API key in the variable named by weaviate.api_key_env")
		}
	}
	if u := w.URL; u != "" {
		checkURL("weaviate.url", u)
	}
	if w.URL != "" && len(w.URLs) > 0 {
		v.bad("weaviate.urls", "set either weaviate.url or weaviate.urls, not both")
	}
	seen := map[string]bool{}
	for i, u := range w.URLs {
		path := fmt.Sprintf("weaviate.urls[%d]", i)
		checkURL(path, u)
		if seen[u] {
			v.bad(path, "%q is listed twice", redactURL(u))
		}
		seen[u] = true
	}
	if w.APIKeyEnv != "" && len(w.Endpoints()) == 0 {
		v.bad("weaviate.api_key_env", "is only used with weaviate.url or weaviate.urls (a remote cluster)")
	} else {
		v.apiKeyEnv("weaviate.api_key_env", w.APIKeyEnv)
	}
	if p := w.Port; p < 1 || p > 65535-5 {
		v.bad("weaviate.port", "must be 1..65530 (ports port..port+5 are used), got %d", p)
	}
	if w.Timeout < 0 {
		v.bad("weaviate.timeout", "must be positive, got %s", w.Timeout)
	}
	if w.ReplicationFactor < 1 {
		v.bad("weaviate.replication_factor", "must be at least 1 (the number of copies of each object), got %d", w.ReplicationFactor)
	}
	switch w.VectorIndex {
	case "", "hnsw", "flat":
	default:
		v.bad("weaviate.vector_index", "must be flat (the default) or hnsw, got %q", w.VectorIndex)
	}
	if w.Shards < 0 {
		v.bad("weaviate.shards", "must be 0 (one shard per node, Weaviate's default) or more, got %d", w.Shards)
	}
	if !slices.Contains([]string{"ONE", "QUORUM", "ALL"}, w.ConsistencyLevel) {
		v.bad("weaviate.consistency_level", "got %q, want one of ONE, QUORUM, ALL", w.ConsistencyLevel)
	}
	if col := w.Collection; !className.MatchString(col) {
		v.bad("weaviate.collection", "must be a Weaviate class name (an upper-case letter, then letters, digits or _), got %q", col)
	}
	v.embedder("embedder", v.c.Embedder)
	if v.c.Embedder.QueryTimeout != 0 {
		v.bad("embedder.query_timeout", "is a setting of embedder.semantic (the budget of its question embedding)")
	}
	if sem := v.c.Embedder.Semantic; sem != nil {
		v.embedder("embedder.semantic", *sem)
		if t := sem.QueryTimeout; t < 0 || t > MaxSemanticQueryTimeout {
			v.bad("embedder.semantic.query_timeout", "must be at most %s, or 0 for 2s, got %s", MaxSemanticQueryTimeout, t)
		}
		if sem.Semantic != nil {
			v.bad("embedder.semantic.semantic", "there is one semantic embedder")
		}
	}
}

// EmbedderKinds are the valid values of embedder.kind and
// embedder.semantic.kind.
var EmbedderKinds = []string{"offline", "openai", "codesearch", "onnx"}

// embedder checks the kind and settings of the embedder at path p.
func (v *validator) embedder(p string, e Embedder) {
	removed := v.removedKind(p, e)
	if !removed && !slices.Contains(EmbedderKinds, e.Kind) {
		n := len(EmbedderKinds)
		v.bad(p+".kind", "got %q, want %s or %s", e.Kind, strings.Join(EmbedderKinds[:n-1], ", "), EmbedderKinds[n-1])
	}
	if !removed && e.Kind != "codesearch" && e.Kind != "openai" && e.Kind != "onnx" && e.Model != "" {
		v.bad(p+".model", "model is a setting of the codesearch embedder (a model file), of kind onnx and of kind openai (a model name), but kind is %q", e.Kind)
	}
	v.removedAdapt(p, e)
	v.openai(p, e)
}

func (v *validator) retrieval() {
	r := v.c.Retrieval
	if r.Alpha == nil {
		v.bad("retrieval.alpha", "must be set")
	} else if a := *r.Alpha; a < 0 || a > 1 {
		v.bad("retrieval.alpha", "must be between 0 (BM25 only) and 1 (vectors only), got %g", a)
	}
	if w := r.SemanticWeight; w != nil && (*w < 0 || *w > 1) {
		v.bad("retrieval.semantic_weight", "must be between 0 (lexical vector only) and 1 (semantic vector only), got %g", *w)
	}
	if k := r.TopK; k < 1 || k > 20 {
		v.bad("retrieval.top_k", "must be 1..20, got %d", k)
	}
	if n := r.Candidates; n < r.TopK || n > 200 {
		v.bad("retrieval.candidates", "must be top_k..200, got %d", n)
	}
	v.removedExpansion()
}

func (v *validator) indexing() {
	ix := v.c.Indexing
	if n := ix.MaxSymbolLines; n < 10 {
		v.bad("indexing.max_symbol_lines", "must be at least 10, got %d", n)
	}
	if n := ix.WindowLines; n < 5 || n > ix.MaxSymbolLines {
		v.bad("indexing.window_lines", "must be 5..max_symbol_lines, got %d", n)
	}
	if n := ix.Workers; n < 0 {
		v.bad("indexing.workers", "must be 0 (one per CPU) or more, got %d", n)
	}
	for i, g := range ix.RedactAllowPaths {
		if g == "" || !doublestar.ValidatePattern(g) {
			v.bad(fmt.Sprintf("indexing.redact_allow_paths[%d]", i), "%q is not a valid glob (doublestar syntax: \"testdata/**\", \"**/*_test.go\")", g)
		}
	}
	seen := map[string]bool{}
	for i, id := range ix.RedactDisableRules {
		switch {
		case !redactRuleID.MatchString(id):
			v.bad(fmt.Sprintf("indexing.redact_disable_rules[%d]", i), "%q is not a gitleaks rule id (lower-case words joined by \"-\", like \"generic-api-key\")", id)
		case seen[id]:
			v.bad(fmt.Sprintf("indexing.redact_disable_rules[%d]", i), "%q is listed twice", id)
		}
		seen[id] = true
	}
}

// redactRuleID is the shape of gitleaks' rule ids (config/gitleaks.toml:
// "aws-access-token", "generic-api-key", "1password-secret-key"). Whether
// the id exists is checked when the detector is built (ingest.NewRedactor).
var redactRuleID = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// linkPlaceholder finds the {name} placeholders of a link template.
var linkPlaceholder = regexp.MustCompile(`\{[^{}]*\}`)

func (v *validator) sources() {
	if len(v.c.Sources) == 0 {
		v.bad("sources", "must list at least one source")
	}
	seen := map[string]int{}
	for i, s := range v.c.Sources {
		p := fmt.Sprintf("sources[%d]", i)
		switch j, dup := seen[s.Name]; {
		case s.Name == "":
			v.bad(p+".name", "must not be empty")
		case strings.ContainsAny(s.Name, "|\n"):
			v.bad(p+".name", "must not contain '|' or a newline, got %q", s.Name)
		case dup:
			v.bad(p+".name", "%q is already the name of sources[%d]", s.Name, j)
		default:
			seen[s.Name] = i
		}
		if !slices.Contains([]string{KindGit, KindMarkdown, KindOpenAPI, KindConfluence, KindHTML}, s.Kind) {
			v.bad(p+".kind", "got %q, want one of git, markdown, openapi, confluence, html", s.Kind)
		}
		switch {
		case s.Kind == KindOpenAPI:
			v.file(p+".path", s.Path)
		case s.Kind == KindConfluence:
			if s.Path != "" {
				v.bad(p+".path", "a confluence source has no path; its pages come from url")
			}
		case s.Kind == KindGit && s.URL != "": // a remote repository: gitSource checks path
		default:
			v.path(p+".path", s.Path)
		}
		v.confluence(i, s)
		v.gitSource(p, s)
		if s.Kind != KindGit && len(s.Branches) > 0 {
			v.bad(p+".branches", "only git sources have branches")
		}
		if s.Kind != KindGit && len(s.Include) > 0 {
			v.bad(p+".include", "only git sources have include; use exclude")
		}
		if s.Kind != KindGit && s.Kind != KindMarkdown && s.LinkTemplate != "" {
			v.bad(p+".link_template", "only git and markdown sources have links")
		}
		for j, b := range s.Branches {
			if b == "" || strings.HasPrefix(b, "-") || strings.ContainsAny(b, " ~^:?*[\\") {
				v.bad(fmt.Sprintf("%s.branches[%d]", p, j), "not a valid branch name: %q", b)
			}
		}
		v.linkTemplate(p+".link_template", s.LinkTemplate)
		v.excludes(p, s)
	}
}

// path checks that a source path names a directory.
func (v *validator) path(field, p string) {
	if st, ok := v.stat(field, p); ok && !st.IsDir() {
		v.bad(field, "%q is not a directory", p)
	}
}

// file checks that a source path names a regular file (an API description).
func (v *validator) file(field, p string) {
	if st, ok := v.stat(field, p); ok && st.IsDir() {
		v.bad(field, "%q is a directory; an openapi source names the spec file", p)
	}
}

// stat resolves p against the config's folder and reports a missing or
// unreadable path on field; ok is false when it did.
func (v *validator) stat(field, p string) (fs.FileInfo, bool) {
	if p == "" {
		v.bad(field, "must not be empty")
		return nil, false
	}
	st, err := os.Stat(v.c.Resolve(p))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		v.bad(field, "%q does not exist", p)
		return nil, false
	case err != nil:
		v.bad(field, "%q: %v", p, err)
		return nil, false
	}
	return st, true
}

// linkTemplate checks that t, if set, has {path} and no placeholder that
// ingest would leave in the link as it is (such as a misspelt {line}).
func (v *validator) linkTemplate(field, t string) {
	if t == "" {
		return
	}
	if !strings.Contains(t, "{path}") {
		v.bad(field, "must contain {path}, got %q", t)
	}
	for _, ph := range linkPlaceholder.FindAllString(t, -1) {
		switch ph {
		case "{commit}", "{path}", "{start}", "{end}":
		default:
			v.bad(field, "unknown placeholder %s, want {commit}, {path}, {start} or {end}", ph)
		}
	}
}

// redactURL hides the user information of u ("user:pass@") so that a
// rejected URL can be quoted in a message without its secret.
func redactURL(u string) string {
	at := strings.LastIndex(u, "@")
	if at < 0 {
		return u
	}
	start := 0
	if i := strings.Index(u, "://"); i >= 0 && i < at {
		start = i + len("://")
	}
	return u[:start] + "xxxxx" + u[at:]
}

// SourceID returns the stable chunk source id of s: "repo:<name>" for git,
// "openapi:<name>" for API descriptions, "confluence:<name>" for Confluence
// spaces, "docs:<name>" for markdown folders and HTML exports: the Source of
// every retrieval.Chunk indexed from s.
func (s Source) SourceID() string {
	switch s.Kind {
	case KindGit:
		return "repo:" + s.Name
	case KindOpenAPI:
		return "openapi:" + s.Name
	case KindConfluence:
		return "confluence:" + s.Name
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

// SourceIDsNamed returns the source id (Source.SourceID) of each source
// named in names, in order. A name no source has is an error naming it,
// with the nearest configured name when one is a likely typo
// (suggest.Name), else the configured names.
func (c *Config) SourceIDsNamed(names []string) ([]string, error) {
	var ids []string
	for _, n := range names {
		s, ok := c.SourceNamed(n)
		if !ok {
			var all []string
			for _, s := range c.Sources {
				all = append(all, s.Name)
			}
			if near, ok := suggest.Name(n, all); ok {
				return nil, fmt.Errorf("%q is not a configured source; did you mean %q?", n, near)
			}
			return nil, fmt.Errorf("%q is not a configured source (configured: %s)", n, strings.Join(all, ", "))
		}
		ids = append(ids, s.SourceID())
	}
	return ids, nil
}

// DefersSemantic reports whether index runs write chunks before their
// semantic vectors (ingest.Indexer.DeferSemantic): with embedder.semantic
// of kind onnx, whose vectors take minutes for a large source on a CPU.
func (c *Config) DefersSemantic() bool {
	return c.Embedder.Semantic != nil && c.Embedder.Semantic.Kind == "onnx"
}

// SourceIDs returns the source id (Source.SourceID) of each configured
// source, in order.
func (c *Config) SourceIDs() []string {
	ids := make([]string, len(c.Sources))
	for i, src := range c.Sources {
		ids[i] = src.SourceID()
	}
	return ids
}

// SourceIDsByName maps each configured source's name to its source id (an
// eval question's corpus is a source name); of two sources with one name,
// the first, as SourceNamed.
func (c *Config) SourceIDsByName() map[string]string {
	m := map[string]string{}
	for _, s := range c.Sources {
		if _, dup := m[s.Name]; !dup {
			m[s.Name] = s.SourceID()
		}
	}
	return m
}
