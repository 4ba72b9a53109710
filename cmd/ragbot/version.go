package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

const versionAbout = `ragbot version prints ragbot's version and commit (as scripts/build.sh stamped
them, else from the build info), the Go version, and, when the config file is
found, the configured embedder and the version of the Weaviate server if it
already answers (with weaviate.urls, the first node that accepts a
connection, as every command uses). It starts no server.

Example:
  ragbot version --config ragbot.yaml`

func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cf commonFlags
	fs := newFlags("version", versionAbout, stderr)
	cf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ragbot %s\n", buildVersion())
	fmt.Fprintf(stdout, "go %s\n", runtime.Version())
	if _, err := os.Stat(cf.config); err != nil {
		return nil // no config: nothing more to report
	}
	cfg, err := config.Load(cf.config)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "embedder %s\n", embedderName(ctx, cfg, stderr))
	nodes := cfg.Weaviate.Endpoints()
	if len(nodes) == 0 {
		nodes = []string{fmt.Sprintf("http://127.0.0.1:%d", cfg.Weaviate.Port)}
	}
	v, node, err := weaviateVersion(ctx, nodes, envValue(cfg.Weaviate.APIKeyEnv))
	if err != nil {
		redacted := make([]string, len(nodes))
		for i, u := range nodes {
			redacted[i] = redactURL(u)
		}
		fmt.Fprintf(stdout, "weaviate not reachable (%s)\n", strings.Join(redacted, ", "))
		return nil
	}
	fmt.Fprintf(stdout, "weaviate %s (%s)\n", v, redactURL(node))
	return nil
}

// The version, commit and work tree state stamped at link time by
// scripts/build.sh (go build -ldflags "-X main.stampedCommit=SHA ..."), so
// that the commit is known however the binary was built: the go command
// stamps vcs.revision only when it can run git on the work tree and
// -buildvcs is not false (GOFLAGS=-buildvcs=false, a copy of the tree
// without .git). Empty, buildVersion reads the build info.
var (
	stampedVersion  string // the release tag at the commit, "v1.2.0"
	stampedCommit   string // full SHA of the commit built
	stampedModified string // "true" when the work tree had changes
)

// buildVersion is ragbot's version and commit: the stamped ones, else the
// main module's version with the vcs.revision and vcs.modified settings the
// go command stamps into the binary (see runtime/debug.BuildInfo and `go
// help buildvcs`), e.g. "v1.2.0 (d5de0b2c1f3a, modified)"; "(devel)" for a
// `go build` with neither.
func buildVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi, stampedVersion, stampedCommit, stampedModified == "true")
}

// versionOf is buildVersion for build info bi (nil when the binary has
// none) and the stamped values: a stamped commit replaces the build info's
// vcs settings, with modified; a stamped version replaces the module's.
func versionOf(bi *debug.BuildInfo, version, commit string, modified bool) string {
	if bi == nil && version == "" && commit == "" {
		return "unknown (no build info)"
	}
	v := version
	if v == "" && bi != nil {
		v = bi.Main.Version
	}
	if v == "" {
		v = "(devel)"
	}
	rev := commit
	if rev == "" && bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var extra []string
	if rev != "" {
		extra = append(extra, rev[:min(12, len(rev))])
	}
	if modified {
		extra = append(extra, "modified")
	}
	if len(extra) > 0 {
		v += " (" + strings.Join(extra, ", ") + ")"
	}
	return v
}

// embedderName names the configured embedder without contacting anything:
// the static model is loaded from disk, but for kind openai (whose Name
// needs a request to learn the vector length) it is the kind and model.
func embedderName(ctx context.Context, cfg *config.Config, stderr io.Writer) string {
	switch cfg.Embedder.Kind {
	case "openai":
		return "openai:" + cfg.Embedder.Model
	case "static", "codesearch":
		emb, err := newEmbedder(ctx, cfg, stderr)
		if err != nil {
			return fmt.Sprintf("%s (model not loaded: %v)", cfg.Embedder.Kind, err)
		}
		return emb.Name()
	}
	return embed.NewOffline().Name()
}

// weaviateVersion returns the version GET /v1/meta reports
// (https://weaviate.io/developers/weaviate/api/rest#tag/meta) and the URL
// of the node that answered: the request goes through the store's HTTP
// client (weaviate.HTTPClient), which fails over from nodes[0] to the next
// node that accepts a connection. It waits 2 seconds for the answer, plus
// weaviate.FailoverDialTimeout for each other node it may have to skip.
func weaviateVersion(ctx context.Context, nodes []string, apiKey string) (version, node string, err error) {
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

// redactURL hides a password in u (url.URL.Redacted), so the output can be
// pasted into an issue.
func redactURL(u string) string {
	p, err := neturl.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return p.Redacted()
}
