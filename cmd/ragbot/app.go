package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/suggest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatelocal"
)

// app is the wiring shared by the subcommands: config, a Weaviate (the
// configured URL, an already running local server, or one started now),
// the store and the embedder. Close stops what Open started.
type app struct {
	cfg      *config.Config
	log      *slog.Logger
	embedder retrieval.Embedder
	store    *weaviate.Store
	server   *weaviatelocal.Server  // nil unless this process started it
	stderr   io.Writer              // progress and notices
	onRun    func(ingest.RunReport) // newIndexer's Indexer.OnRun (serve's metrics), or nil
	redactor *ingest.Redactor       // indexing.redact (redact.go); nil when off
}

// commonFlags are the flags every subcommand has.
type commonFlags struct {
	config    string
	verbose   bool
	logFormat logFormat
	// indexing is set by runIndex: a collection of another model is
	// re-embedded, not refused (openStore).
	indexing bool
	recreate bool // index --recreate: open a collection of another embedder to drop it
	// observe, set by serve, times the store's Weaviate requests (metrics).
	observe weaviate.RequestObserver
}

func (c *commonFlags) register(fs interface {
	StringVar(*string, string, string, string)
	BoolVar(*bool, string, bool, string)
	Var(flag.Value, string, string)
}) {
	c.config = "ragbot.yaml"
	c.logFormat = "text"
	fs.StringVar(&c.config, "config", "ragbot.yaml", "config `file`")
	fs.BoolVar(&c.verbose, "v", false, "log debug lines to stderr")
	fs.Var(&c.logFormat, "log-format", "format of the log lines on stderr: text (key=value) or json (one object a line)")
}

// logFormat is the value of --log-format: "text" for slog.TextHandler or
// "json" for slog.JSONHandler (https://pkg.go.dev/log/slog#hdr-Handlers).
// Set refuses anything else, which makes it a usage error (parseFlags).
type logFormat string

func (f *logFormat) String() string { return string(*f) }

func (f *logFormat) Set(s string) error {
	if s != "text" && s != "json" {
		return errors.New("want text or json")
	}
	*f = logFormat(s)
	return nil
}

// handler returns the slog handler of format f writing to w.
func (f logFormat) handler(w io.Writer, opts *slog.HandlerOptions) slog.Handler {
	if f == "json" {
		return slog.NewJSONHandler(w, opts)
	}
	return slog.NewTextHandler(w, opts)
}

// newLogger logs warnings and errors to stderr, and debug lines too with -v,
// in the --log-format; results go to stdout and short notices straight to
// stderr.
func newLogger(stderr io.Writer, cf commonFlags) *slog.Logger {
	level := slog.LevelWarn
	if cf.verbose {
		level = slog.LevelDebug
	}
	return slog.New(cf.logFormat.handler(stderr, &slog.HandlerOptions{Level: level}))
}

// loadConfig loads the config, pointing a user who has none at the example.
func loadConfig(path string) (*config.Config, error) {
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil, fmt.Errorf("config file %s not found; copy ragbot.example.yaml or pass --config FILE", path)
	}
	return config.Load(path)
}

// openApp loads the config and connects to Weaviate, starting the local
// server when no URL is configured and none is running on the configured port.
func openApp(ctx context.Context, flags commonFlags, stderr io.Writer) (*app, error) {
	cfg, err := loadConfig(flags.config)
	if err != nil {
		return nil, err
	}
	return openAppConfig(ctx, cfg, flags, stderr)
}

// openAppConfig is openApp with the config loaded.
func openAppConfig(ctx context.Context, cfg *config.Config, flags commonFlags, stderr io.Writer) (*app, error) {
	emb, err := newEmbedder(ctx, cfg, stderr)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: newLogger(stderr, flags), embedder: emb, stderr: stderr}
	if a.redactor, err = newRedactor(cfg); err != nil {
		return nil, err
	}
	url, apiKey := "", ""
	var failover []string
	if eps := cfg.Weaviate.Endpoints(); len(eps) > 0 {
		url, failover = eps[0], eps[1:]
	}
	if env := cfg.Weaviate.APIKeyEnv; env != "" {
		apiKey = os.Getenv(env)
	}
	if url == "" {
		url, err = a.localWeaviate(ctx)
		if err != nil {
			return nil, err
		}
	}
	a.store, err = a.openStore(ctx, weaviate.StoreConfig{
		URL: url, Failover: failover, APIKey: apiKey, ChunkClass: cfg.Weaviate.Collection, Timeout: cfg.Weaviate.Timeout, Logger: a.log,
		Observe: flags.observe, ReplicationFactor: cfg.Weaviate.ReplicationFactor, ConsistencyLevel: cfg.Weaviate.ConsistencyLevel,
	}, flags)
	if err != nil {
		a.Close()
		nodes := append([]string{url}, failover...)
		if ctx.Err() == nil && !slices.ContainsFunc(nodes, func(u string) bool { return weaviatelocal.Ready(ctx, u) }) {
			// The client's own error for a refused connection is "status -1:
			// check the DerivedFromError field", which tells a new user nothing.
			a.log.Debug("weaviate unreachable", "url", url, "err", err)
			return nil, fmt.Errorf("cannot reach Weaviate at %s: is it running? (`ragbot weaviate`)", strings.Join(nodes, ", "))
		}
		return nil, err
	}
	return a, nil
}

// localWeaviate returns the URL of the embedded server: one already answering
// on the configured port (e.g. `ragbot weaviate` in another terminal), or a
// child process started now.
func (a *app) localWeaviate(ctx context.Context) (string, error) {
	url := fmt.Sprintf("http://127.0.0.1:%d", a.cfg.Weaviate.Port)
	if weaviatelocal.Ready(ctx, url) {
		a.log.Debug("using running weaviate", "url", url)
		return url, nil
	}
	fmt.Fprintf(a.stderr, "starting local Weaviate on %s (about 10 s)...\n", url)
	srv, err := weaviatelocal.Start(ctx, weaviatelocal.Options{
		Binary: a.cfg.Weaviate.Binary, DataDir: a.cfg.Resolve(a.cfg.Weaviate.DataDir), Port: a.cfg.Weaviate.Port, Logger: a.log,
	})
	if err != nil {
		return "", err
	}
	a.server = srv
	return srv.URL, nil
}

// Close stops the local server if this process started it.
func (a *app) Close() {
	if a.server != nil {
		_ = a.server.Stop(context.Background())
	}
}

// commaList splits a comma-separated flag value into its trimmed, non-empty items.
func commaList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// sourceIDs maps source names to chunk source ids; an unknown name is an error.
// It needs only the config, so that a typo is caught before Weaviate starts.
func sourceIDs(cfg *config.Config, names string) ([]string, error) {
	if names == "" {
		return nil, nil
	}
	var ids []string
	for _, n := range commaList(names) {
		s, ok := cfg.SourceNamed(n)
		if !ok {
			var all []string
			for _, s := range cfg.Sources {
				all = append(all, s.Name)
			}
			if near, ok := suggest.Name(n, all); ok {
				return nil, fmt.Errorf("%w: --source %q is not a configured source; did you mean %q?", errUsage, n, near)
			}
			return nil, fmt.Errorf("%w: --source %q is not a configured source (configured: %s)", errUsage, n, strings.Join(all, ", "))
		}
		ids = append(ids, s.SourceID())
	}
	return ids, nil
}
