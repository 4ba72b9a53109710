package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/connect"
	"github.com/ragbot/ragbot/internal/embedders"
	"github.com/ragbot/ragbot/internal/lograte"
	"github.com/ragbot/ragbot/internal/sources"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// app is the wiring shared by the subcommands: config, a Weaviate (the
// configured URL, an already running local server, or one started now),
// the store and the embedder. Close stops what openApp started.
type app struct {
	cfg      *config.Config
	log      *slog.Logger
	embedder retrieval.Embedder
	store    *weaviate.Store
	conn     *connect.Conn          // store, and the local server if this process started it
	stderr   io.Writer              // progress and notices
	onRun    func(ingest.RunReport) // newIndexer's Indexer.OnRun (serve's metrics), or nil
	redactor *ingest.Redactor       // indexing.redact (redact.go); nil when off
	// semanticDown is why the semantic embedder failed at start
	// (embedders.Guard), nil when it did not; lexicalOnly says that
	// connect.Conn.ReopenSemantic could not make it at all.
	semanticDown error
	lexicalOnly  bool
}

// commonFlags are the flags every subcommand has.
type commonFlags struct {
	config    string
	verbose   bool
	logFormat logFormat
	// indexing is set by runIndex: a collection of another model is
	// re-embedded, not refused (connect.Options).
	indexing bool
	recreate bool // index --recreate: open a collection of another embedder to drop it
	// observe, set by serve, times the store's Weaviate requests (metrics).
	observe weaviate.RequestObserver
	// rateLimitLog, set by serve, writes a Warn or Error line of one cause
	// at most every 10 s (internal/lograte).
	rateLimitLog bool
	// answering, set by ask and serve, starts without a semantic embedder
	// whose endpoint is down (embedders.Guard) instead of failing.
	answering bool
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

// newLogger logs lines of level and above to stderr (serve: Info, the
// lifecycle lines; the others: Warn), and debug lines too with -v, in the
// --log-format; results go to stdout and short notices straight to stderr.
func newLogger(stderr io.Writer, cf commonFlags, level slog.Level) *slog.Logger {
	if cf.verbose {
		level = slog.LevelDebug
	}
	h := cf.logFormat.handler(stderr, &slog.HandlerOptions{Level: level})
	if cf.rateLimitLog {
		h = lograte.New(h, 0, nil)
	}
	return slog.New(h)
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
	a := &app{cfg: cfg, log: newLogger(stderr, flags, slog.LevelWarn), stderr: stderr}
	var down error
	var err error
	if !flags.answering && !flags.indexing { // eval needs the semantic embedder: fail without it
		a.embedder, err = embedders.New(ctx, cfg.Embedder, cfg.Resolve)
	} else { // a question, or an index run (pending semantic vectors), does not wait for a semantic endpoint that is down (embedders.Guard)
		a.embedder, down, err = embedders.NewForQuestions(ctx, cfg.Embedder, cfg.Resolve, embedders.QueryBudget(cfg.Embedder))
	}
	if err != nil {
		return nil, err
	}
	if down != nil {
		a.log.Warn("semantic embedder unavailable at start; answering from keywords", "err", down)
	}
	if a.redactor, err = newRedactor(cfg); err != nil {
		retrieval.CloseEmbedder(a.embedder)
		return nil, err
	}
	opt := connect.Options{Log: a.log, Notices: stderr, Observe: flags.observe, Indexing: flags.indexing, Recreate: flags.recreate}
	first := opt
	if down != nil { // an index run opened without the semantic embedder would clear its record, which ReopenSemantic reads
		first.Indexing = false
	}
	conn, err := connect.Open(ctx, cfg, a.embedder, first)
	if err != nil {
		retrieval.CloseEmbedder(a.embedder)
		return nil, err
	}
	a.conn, a.store = conn, conn.Store
	if down != nil {
		emb, ok := conn.ReopenSemantic(ctx, cfg, a.embedder, opt)
		if ok {
			a.embedder, a.store = emb, conn.Store
		} else if flags.indexing && !flags.answering { // index: its vector length is unknown
			conn.Close()
			retrieval.CloseEmbedder(a.embedder)
			return nil, down
		}
		a.semanticDown, a.lexicalOnly = down, !ok
	}
	return a, nil
}

// sources is the view of the configured sources that index runs, forget
// and the pipeline read, logging to a's logger.
func (a *app) sources() sources.Sources { return sources.Sources{Config: a.cfg, Log: a.log} }

// Close stops the local server if this process started it, and closes the
// embedder (retrieval.CloseEmbedder: the transformer's ONNX Runtime
// sessions).
func (a *app) Close() {
	a.conn.Close()
	if err := retrieval.CloseEmbedder(a.embedder); err != nil {
		a.log.Warn("closing the embedder", "err", err)
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
