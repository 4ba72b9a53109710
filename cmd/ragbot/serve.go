package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/bot"
	slackbot "github.com/ragbot/ragbot/bot/slack"
	teamsbot "github.com/ragbot/ragbot/bot/teams"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/forget"
	"github.com/ragbot/ragbot/internal/metrics"
	"github.com/ragbot/ragbot/internal/readiness"
	"github.com/ragbot/ragbot/retrieval/weaviate"
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
	var cf commonFlags
	fs := newFlags("serve", serveAbout, stderr)
	cf.register(fs)
	listen := fs.String("listen", "", "HTTP `host:port`; empty means serve.listen of the config (default 127.0.0.1:8080)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: serve takes no arguments, got %q", errUsage, fs.Args())
	}
	s, err := startServer(ctx, cf, *listen, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Run(ctx)
}

// server is `ragbot serve`: the app (Weaviate, store), the chat surfaces
// (Slack, Teams) and the HTTP server they share. Close stops what startServer started.
type server struct {
	app             *app
	log             *slog.Logger
	bot             *slackbot.Bot  // nil when Slack is off (see config.SlackEnabled)
	teams           *teamsbot.Bot  // nil unless teams is configured
	mux             *http.ServeMux // /healthz, /slack/* in http mode; other features (push webhooks) mount their routes here
	http            *http.Server
	ln              net.Listener
	mode            string // slack.mode, or "off"
	shutdownTimeout time.Duration
	sched           *ingest.Scheduler  // Confluence TTL syncs and git polls
	git             *gitIndexing       // git webhooks, polls and the stale guard
	claims          *weaviate.Claims   // deliveries and index leases shared with the other replicas (replicas.go)
	metrics         *metrics.Metrics   // GET /metrics
	ready           *readiness.Handler // GET /readyz
}

// startServer loads the config, checks the credentials of the chat surfaces
// it turns on (before anything starts), connects to Weaviate, checks the bot
// token with Slack and the app id and password with the Bot Framework, and
// listens on the HTTP address; listen overrides serve.listen.
func startServer(ctx context.Context, cf commonFlags, listen string, stderr io.Writer) (*server, error) {
	cfg, err := loadConfig(cf.config)
	if err != nil {
		return nil, err
	}
	secrets, err := readChatSecrets(cfg)
	if err != nil {
		return nil, err
	}
	m := metrics.New(cfg.Sources)
	cf.observe = m.WeaviateRequest
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
	s := &server{app: a, log: serveLogger(stderr, cf), mode: a.cfg.Slack.Mode, shutdownTimeout: a.cfg.Serve.ShutdownTimeout, metrics: m}
	if !a.cfg.SlackEnabled() {
		s.mode = "off"
	}
	if err := s.wire(ctx, secrets, listen); err != nil {
		a.Close()
		return nil, err
	}
	return s, nil
}

// Votes from Slack and Teams go to the Weaviate feedback collection.
var _ bot.FeedbackSink = (*weaviate.FeedbackLog)(nil)

func (s *server) wire(ctx context.Context, secrets chatSecrets, listen string) error {
	cfg := s.app.cfg
	votes, err := s.app.store.OpenFeedback(ctx)
	if err != nil {
		return err
	}
	// One answer pipeline (retrieval.Asker with the stale, TTL and branch
	// guards), as in ask. /where-is lists locations, so it shows more of
	// them than an answer.
	asker, branches := s.app.pipeline(ctx)
	lister := *asker
	lister.TopK = max(asker.TopK, 10)
	lister.Candidates = max(asker.Candidates, lister.TopK)
	// One admission pool for every surface: they share Weaviate and the CPU.
	admission := bot.NewAdmission(bot.AdmissionConfig{Max: cfg.Serve.MaxConcurrentAnswers,
		Queue: cfg.Serve.AnswerQueueLength, Wait: cfg.Serve.AnswerQueueWait, OnReject: s.metrics.Refused})
	s.metrics.Admission(admission)
	answerer := admission.Wrap(asker)
	listAnswerer := s.metrics.Answerer(metrics.SurfaceSlackCommand, admission.Wrap(&lister))
	// Freshness: Confluence sources re-sync by TTL on the scheduler; git
	// sources by push webhooks and polls on the same scheduler.
	s.sched = ingest.NewScheduler(ingest.SchedulerOptions{Log: s.log, OnSkip: s.metrics.ScheduleSkipped})
	if err := s.openClaims(ctx); err != nil {
		return err
	}
	pageIndexer := newIndexer(s.app)
	pageIndexer.Log = s.log
	if err := schedulePageSyncs(ctx, s.sched, pageIndexer, cfg, s.indexLease(), s.metrics.ScheduleSkipped); err != nil {
		return err
	}
	// Votes older than feedback.retention go, at start and daily.
	if err := (forget.Retention{Votes: votes, Keep: cfg.Feedback.RetentionDuration, Now: time.Now, Log: s.log}).Schedule(s.sched); err != nil {
		return err
	}
	if s.git, err = newGitIndexing(s.app, s.sched, branches, s.log, s.indexLease(), s.metrics.ScheduleSkipped); err != nil {
		return err
	}
	s.metrics.QueueDepth(s.git.svc.QueueDepth)
	if cfg.SlackEnabled() {
		sec := secrets.slack
		api := slackgo.New(sec.BotToken.Reveal(), slackgo.OptionAPIURL(slackAPIURL(cfg)), slackgo.OptionAppLevelToken(sec.AppToken.Reveal()))
		s.bot, err = slackbot.New(ctx, slackbot.Config{
			API: api, SigningSecret: sec.SigningSecret.Reveal(), Answerer: answerer, Lister: listAnswerer,
			Access: channelAccess(cfg), Feedback: votes, Command: cfg.Slack.Command,
			AnswerTimeout: cfg.Slack.AnswerTimeout, Logger: s.log, Hooks: s.metrics.BotHooks(metrics.SurfaceSlack), Claims: s.claims,
		})
		if err != nil {
			return err
		}
	}
	if err := s.wireTeams(ctx, secrets.teams, answerer, votes); err != nil {
		return err
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	s.ready = readiness.New(s.readyCheck)
	s.mux.Handle("GET /readyz", s.ready)              // internal/readiness
	s.mux.Handle("GET /metrics", s.metrics.Handler()) // Prometheus text format (internal/metrics)
	if s.bot != nil && s.mode == config.SlackHTTP {
		s.bot.Routes(s.mux)
	}
	if s.teams != nil {
		s.teams.Routes(s.mux) // POST /api/messages
	}
	// Push webhooks: POST /webhooks/<source name>, or /webhooks/ for an org-wide hook.
	s.mux.Handle("/webhooks/", s.metrics.CountWebhooks(s.git.Webhooks()))
	if listen == "" {
		listen = cfg.Serve.Listen
	}
	s.ln, err = net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("serve.listen %s: %w", listen, err)
	}
	// Slack's payloads are small; these bound slow or stuck clients, not Slack.
	s.http = &http.Server{Handler: s.mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	return nil
}

// channelAccess turns the access section (source names) into source ids per
// channel; ACL groups keep their names, as chunks store them.
func channelAccess(cfg *config.Config) bot.Access {
	ids := func(names []string) []string {
		out := []string{}
		for _, n := range names {
			if src, ok := cfg.SourceNamed(n); ok {
				out = append(out, src.SourceID())
			}
		}
		return out
	}
	acc := bot.Access{Default: ids(cfg.AccessFor("")), Channels: map[string][]string{}, Groups: cfg.Access.Groups}
	for ch := range cfg.Access.Channels {
		acc.Channels[ch] = ids(cfg.AccessFor(ch))
	}
	return acc
}

// Addr returns the address the HTTP server listens on.
func (s *server) Addr() string { return s.ln.Addr().String() }

// Run serves until ctx ends (SIGINT/SIGTERM in main) or a transport fails,
// then shuts down: Socket Mode is closed and the HTTP server stops taking
// requests (http.Server.Shutdown), in-flight answers finish, all within
// serve.shutdown_timeout, after which the answers still running are
// cancelled; a second signal cancels them at once. The caller's Close then
// stops the local Weaviate.
func (s *server) Run(ctx context.Context) error {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	errc := make(chan error, 3)
	var wg sync.WaitGroup
	wg.Go(func() { // exits when Shutdown closes the listener
		if err := s.http.Serve(s.ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("http server: %w", err)
		}
	})
	if s.bot != nil && s.mode == config.SlackSocket {
		wg.Go(func() { // exits when runCtx ends, or Slack refuses the app token
			if err := s.bot.RunSocketMode(runCtx); err != nil {
				errc <- err
			}
		})
	}
	gitDone := make(chan struct{})
	go func() { // exits when runCtx ends and the git runs under way have recorded their state
		defer close(gitDone)
		if err := s.git.Run(runCtx); err != nil && runCtx.Err() == nil {
			errc <- fmt.Errorf("git indexing: %w", err)
		}
	}()
	s.sched.Start()
	s.log.Info("ragbot serve running", "listen", "http://"+s.Addr(), "slack_mode", s.mode, "teams", s.teams != nil)
	var runErr error
	select {
	case <-ctx.Done():
		s.log.Info("shutting down", "timeout", s.shutdownTimeout)
	case runErr = <-errc:
		s.log.Error("shutting down after a failure", "err", runErr)
	}

	sctx, cancel := context.WithTimeout(context.Background(), s.shutdownTimeout)
	defer cancel()
	hard, stopHard := signal.NotifyContext(sctx, os.Interrupt, syscall.SIGTERM) // a second signal
	defer stopHard()
	stop() // closes Socket Mode: no new events
	if err := s.http.Shutdown(hard); err != nil {
		s.log.Warn("http shutdown", "err", err)
	}
	if s.bot != nil {
		if err := s.bot.Shutdown(hard); err != nil {
			s.log.Warn("answers cancelled at shutdown", "surface", "slack", "err", err)
		}
	}
	if s.teams != nil {
		if err := s.teams.Shutdown(hard); err != nil {
			s.log.Warn("answers cancelled at shutdown", "surface", "teams", "err", err)
		}
	}
	if err := s.sched.Stop(hard); err != nil { // waits for running syncs, cancels them at the deadline
		s.log.Warn("index runs cancelled at shutdown", "err", err)
	}
	<-gitDone
	wg.Wait()
	s.log.Info("stopped")
	return runErr
}

// slackAPIURL is slack.api_url ending in "/": slack-go appends method
// names to it.
func slackAPIURL(cfg *config.Config) string {
	u := cfg.Slack.APIURL
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
}

// readyCheck is /readyz's check: the store ready (Weaviate answers, every
// chunk shard READY) and, in Socket Mode, a Slack connection open (events
// reach this process only through it).
func (s *server) readyCheck(ctx context.Context) error {
	if err := s.app.store.Ready(ctx); err != nil {
		return err
	}
	if s.bot != nil && s.mode == config.SlackSocket && !s.bot.SocketConnected() {
		return errors.New("slack socket mode not connected")
	}
	return nil
}

// Close stops the local Weaviate if this process started it.
func (s *server) Close() { s.app.Close() }

// serveLogger logs lifecycle lines (Info) to stderr, debug lines with -v,
// in the --log-format.
func serveLogger(stderr io.Writer, cf commonFlags) *slog.Logger {
	level := slog.LevelInfo
	if cf.verbose {
		level = slog.LevelDebug
	}
	return slog.New(cf.logFormat.handler(stderr, &slog.HandlerOptions{Level: level}))
}
