package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/doctor"
	"github.com/ragbot/ragbot/internal/embedders"
	"github.com/ragbot/ragbot/internal/sources"
	"github.com/ragbot/ragbot/retrieval"
)

const doctorAbout = `ragbot doctor checks a deployment and explains what is wrong, one line per
check with the fix: the config; Weaviate reachable, its version, every shard
of the collections writable (not READONLY); the collection's embedder equal
to the configured one; coverage thresholds for the embedder in use; each git
source readable and its index at the branch head; each indexed source made
with the config's settings (redaction, chunking, embedder, filters, links:
what the next index run compares before re-reading); each indexed source's
vocabulary current (absent names and typos); Confluence credentials
(one authenticated call); Slack's auth.test and the Teams token when their
credentials are in the environment; the webhook secrets. It starts no
Weaviate and changes nothing.

Lines start with ok, warn, FAIL or skip. Exit code 0 when nothing failed
(warnings allowed), 1 otherwise.

Example:
  ragbot doctor --config ragbot.yaml`

func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newFlags("doctor", doctorAbout, stderr)
	timeout := fs.Duration("timeout", 10*time.Second, "timeout of each network check")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: doctor takes no arguments, got %q", errUsage, fs.Args())
	}
	d := doctor.New(stdout, *timeout)
	cfg, err := loadConfig(cf.config)
	if !d.CheckConfig(cf.config, cfg, err) {
		return d.Err()
	}
	dep := deployment(ctx, cfg)
	defer retrieval.CloseEmbedder(dep.Embedder)
	d.CheckAll(ctx, dep)
	return d.Err()
}

// deployment is what doctor checks of cfg: the embedder, the redactor and
// the settings fingerprints made as an index run makes them.
func deployment(ctx context.Context, cfg *config.Config) doctor.Deployment {
	emb, embErr := embedders.New(ctx, cfg.Embedder, cfg.Resolve)
	red, redErr := newRedactor(cfg)
	dep := doctor.Deployment{Config: cfg, Sources: sources.Sources{Config: cfg, Log: slog.New(slog.DiscardHandler)},
		Embedder: emb, EmbedderErr: embErr, RedactorErr: redErr, SlackAPIURL: cfg.Slack.APIBase()}
	if emb != nil {
		dep.Family = embedders.Family(emb)
		if redErr == nil {
			dep.Settings = &ingest.Indexer{Embedder: emb, Code: codeOptions(cfg), Redact: red}
		}
	}
	return dep
}
