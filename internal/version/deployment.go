package version

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"strings"
	"time"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/internal/embedders"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/embed/transformer"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatelocal"
)

// PrintDeployment writes the lines of `ragbot version` about cfg to w:
// "embedder " and Embedder's name, "semantic embedder " and Semantic's
// description when there is one, then "weaviate <version> (<node>)" for
// the first node of weaviate.urls (or weaviate.url, else the local server
// on weaviate.port) that answers (Weaviate), or "weaviate not reachable
// (<nodes>)". URLs are printed with their passwords hidden, so that the
// output can be pasted into an issue. It starts nothing and returns no
// error: what it cannot learn, it says.
func PrintDeployment(ctx context.Context, w io.Writer, cfg *config.Config) {
	fmt.Fprintf(w, "embedder %s\n", Embedder(ctx, cfg))
	if sem := Semantic(cfg); sem != "" {
		fmt.Fprintf(w, "semantic embedder %s\n", sem)
	}
	nodes, key := cfg.Weaviate.Endpoints(), os.Getenv(cfg.Weaviate.APIKeyEnv)
	if len(nodes) == 0 {
		nodes = []string{fmt.Sprintf("http://127.0.0.1:%d", cfg.Weaviate.Port)}
		key, _ = weaviatelocal.ReadAPIKey(cfg.Resolve(cfg.Weaviate.DataDir)) // none yet: the server never ran
	}
	v, node, err := Weaviate(ctx, nodes, key)
	if err != nil {
		redacted := make([]string, len(nodes))
		for i, u := range nodes {
			redacted[i] = redactURL(u)
		}
		fmt.Fprintf(w, "weaviate not reachable (%s)\n", strings.Join(redacted, ", "))
		return
	}
	fmt.Fprintf(w, "weaviate %s (%s)\n", v, redactURL(node))
}

// Embedder names the configured embedder without contacting anything:
// the codesearch model is loaded (embedder.model, or the one built into the
// binary), but for kind openai (whose Name needs a request to learn the
// vector length) it is the kind and model. A model that does not load
// is named with the reason: "codesearch (model not loaded: ...)".
func Embedder(ctx context.Context, cfg *config.Config) string {
	switch cfg.Embedder.Kind {
	case "openai":
		return "openai:" + cfg.Embedder.Model
	case "codesearch":
		emb, err := embedders.New(ctx, cfg.Embedder, cfg.Resolve)
		if err != nil {
			return fmt.Sprintf("%s (model not loaded: %v)", cfg.Embedder.Kind, err)
		}
		return emb.Name()
	}
	return embed.NewOffline().Name()
}

// Semantic describes embedder.semantic without loading it, "" when there
// is none: for kind onnx the model, its model card, licence, the ONNX
// Runtime version and whether they are installed ("onnx all-minilm-l6-v2-q
// (https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2,
// Apache-2.0; ONNX Runtime 1.22.1), installed", or "not installed: " and
// the install command), else the kind, and the model when one is set.
func Semantic(cfg *config.Config) string {
	s := cfg.Embedder.Semantic
	if s == nil {
		return ""
	}
	if s.Kind != "onnx" {
		return strings.TrimSuffix(s.Kind+" "+s.Model, " ")
	}
	name := cmp.Or(s.Model, transformer.DefaultModel)
	spec, ok := transformer.Lookup(name)
	if !ok {
		return fmt.Sprintf("onnx %s (unknown model)", name)
	}
	state := "installed"
	if err := transformer.Installed(name, ""); err != nil {
		state = "not installed: " + transformer.InstallCommand(name)
	}
	return fmt.Sprintf("onnx %s (%s, %s; ONNX Runtime %s), %s", name, spec.Card, spec.License, transformer.RuntimeVersion, state)
}

// Weaviate returns the version GET /v1/meta reports
// (https://weaviate.io/developers/weaviate/api/rest#tag/meta) and the URL
// of the node that answered, as nodes lists it: the request goes through
// the store's HTTP client (weaviate.HTTPClient), which fails over from
// nodes[0] to the next node that accepts a connection. apiKey, when not
// empty, is sent as a bearer token. It waits 2 seconds for the answer,
// plus weaviate.FailoverDialTimeout for each other node it may have to
// skip. An error when no node answers, or the answer is not 200 or not
// JSON.
func Weaviate(ctx context.Context, nodes []string, apiKey string) (version, node string, err error) {
	hc, err := weaviate.HTTPClient(weaviate.StoreConfig{URL: nodes[0], Failover: nodes[1:]})
	if err != nil {
		return "", "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second+time.Duration(len(nodes)-1)*weaviate.FailoverDialTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(nodes[0], "/")+"/v1/meta", nil)
	if err != nil {
		return "", "", err
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("GET /v1/meta: %s", resp.Status)
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil {
		return "", "", fmt.Errorf("GET /v1/meta: %w", err)
	}
	for _, n := range nodes { // the node as configured
		if p, err := neturl.Parse(n); err == nil && p.Host == resp.Request.URL.Host {
			return meta.Version, n, nil
		}
	}
	return meta.Version, resp.Request.URL.Scheme + "://" + resp.Request.URL.Host, nil
}

// redactURL hides a password in u (url.URL.Redacted).
func redactURL(u string) string {
	p, err := neturl.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return p.Redacted()
}
