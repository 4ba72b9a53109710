package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/embedders"
	"github.com/ragbot/ragbot/internal/metrics"
	"github.com/ragbot/ragbot/internal/serve"
)

const serveAbout = `ragbot serve runs the chat bots (Slack, Microsoft Teams), push webhooks and
scheduled re-indexing until interrupted. In Slack, @mentions and direct
messages are answered in their thread with cited snippets, /where-is with a
list of locations, and the 👍/👎 buttons under answers are stored for
"ragbot feedback export".

Slack is reached over Socket Mode (slack.mode: socket, the default: no public
URL needed) or the HTTP Events API (slack.mode: http: Slack POSTs to
/slack/events, /slack/commands and /slack/interactivity on serve.listen).
Tokens come from the environment: RAGBOT_SLACK_BOT_TOKEN (xoxb-), and
RAGBOT_SLACK_APP_TOKEN (xapp-) for Socket Mode or RAGBOT_SLACK_SIGNING_SECRET
for HTTP (the slack.*_env keys rename them). GET /healthz answers 200 while
the bot runs (liveness); GET /readyz answers 200 only while Weaviate answers,
every shard of the chunk collection is READY and, in Socket Mode, the Slack
connection is open, else 503 with the reason
(readiness, checked at most every 3 s); GET /metrics serves Prometheus metrics (docs/deploy.md). SIGINT or SIGTERM stops it gracefully within
serve.shutdown_timeout; a second signal cancels the answers still running.

Microsoft Teams (when teams.app_id is set): the Bot Framework POSTs
activities to /api/messages on serve.listen (behind HTTPS); each must carry a
valid Bot Framework token. The app password comes from
RAGBOT_TEAMS_APP_PASSWORD (teams.app_password_env renames it). With a teams
section and no slack section (or slack.enabled: false), Slack is off and no
Slack token is needed.

Keeping the index fresh: serve indexes every git source at start, then again
on push webhooks and every sources[].poll_interval (0, the default: webhooks
only). Point a GitHub or GitLab push hook at POST /webhooks/<source name> (or
an organisation-wide hook at /webhooks/) with the secret held by the variable
the source's webhook_secret_env names; a bad signature gets 401, and a burst
of pushes becomes one run. Confluence sources are re-synced every ttl (24h by
default), or at their cron schedule (sources[].schedule, e.g. "0 3 * * *"),
the first time once the ttl has run out since the last sync. Git polls and
Confluence syncs share one scheduler; failed runs back off and are retried.
Markdown, openapi and html sources are indexed by "ragbot index" only.
Votes older than feedback.retention (180d by default) are deleted at start
and then daily.

Example:
  RAGBOT_SLACK_BOT_TOKEN=xoxb-... RAGBOT_SLACK_APP_TOKEN=xapp-... ragbot serve --config ragbot.yaml`

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newFlags("serve", serveAbout, stderr)
	listen := fs.String("listen", "", "HTTP `host:port`; empty means serve.listen of the config (default 127.0.0.1:8080)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: serve takes no arguments, got %q", errUsage, fs.Args())
	}
	s, err := startServer(ctx, *cf, *listen, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Run(ctx)
}

// server is `ragbot serve` (serve.Server) on the app it opened; Close
// stops the local Weaviate if startServer started it.
type server struct {
	*serve.Server
	app *app
}

// startServer loads the config, checks the credentials of the chat surfaces
// it turns on (before anything starts), connects to Weaviate, and builds
// the server (serve.New: the tokens checked with Slack and the Bot
// Framework, the HTTP address listened on); listen overrides serve.listen.
func startServer(ctx context.Context, cf commonFlags, listen string, stderr io.Writer) (*server, error) {
	cfg, err := loadConfig(cf.config)
	if err != nil {
		return nil, err
	}
	secrets, err := serve.ReadSecrets(cfg)
	if err != nil {
		return nil, err
	}
	m := metrics.New(cfg.Sources)
	cf.observe = m.WeaviateRequest
	cf.rateLimitLog = true // a failure every question meets (Weaviate down, the bot busy) is not logged per question
	cf.answering = true    // answer from keywords while a semantic endpoint is down
	a, err := openAppConfig(ctx, cfg, cf, stderr)
	if err != nil {
		return nil, err
	}
	a.onRun = func(r ingest.RunReport) {
		m.IndexRun(r)
		if !r.UpToDate { // chunks may have changed: count terms afresh (Store.DocFreq)
			a.store.InvalidateCounts()
		}
	}
	// One answer pipeline (retrieval.Asker with the stale, TTL and branch
	// guards), as in ask.
	asker, branches := a.pipeline(ctx)
	if b := embedders.Guard(asker, a.cfg.Embedder, a.log, a.lexicalOnly, a.semanticDown); b != nil {
		m.SemanticBreaker(b)
	}
	s, err := serve.New(ctx, serve.Parts{Config: cfg, Store: a.store, Asker: asker, Branches: branches,
		NewIndexer: func() *ingest.Indexer { return newIndexer(a) }, Metrics: m, Log: newLogger(stderr, cf, slog.LevelInfo),
		Secrets: secrets, Listen: listen})
	if err != nil {
		a.Close()
		return nil, err
	}
	return &server{Server: s, app: a}, nil
}

// Close stops the local Weaviate if this process started it.
func (s *server) Close() { s.app.Close() }
