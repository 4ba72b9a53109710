package serve

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/ragbot/ragbot/bot"
	slackbot "github.com/ragbot/ragbot/bot/slack"
	teamsbot "github.com/ragbot/ragbot/bot/teams"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/forget"
	"github.com/ragbot/ragbot/internal/metrics"
	"github.com/ragbot/ragbot/internal/readiness"
	"github.com/ragbot/ragbot/internal/sources"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// Parts are what a Server is made of, made by cmd/ragbot from the config.
type Parts struct {
	Config *config.Config
	Store  *weaviate.Store
	// Asker is the answer pipeline; Branches, the tracked branches it
	// answers about, is read again after every git index run.
	Asker    *retrieval.Asker
	Branches *ingest.Branches
	// NewIndexer returns a new indexer of the config for each use (the git
	// service, the Confluence re-syncs); the server sets its Log.
	NewIndexer func() *ingest.Indexer
	Metrics    *metrics.Metrics // GET /metrics, fed by every part
	Log        *slog.Logger     // lifecycle lines (Info) and below
	Secrets    Secrets          // of the chat surfaces the config turns on (ReadSecrets)
	Listen     string           // HTTP host:port; "" means serve.listen
}

// Server is `ragbot serve`: the chat surfaces, the index runs and the HTTP
// server they share. Run it once.
type Server struct {
	Slack *slackbot.Bot      // nil when Slack is off (see config.SlackEnabled)
	Teams *teamsbot.Bot      // nil unless teams is configured
	Ready *readiness.Handler // GET /readyz

	store           *weaviate.Store
	log             *slog.Logger
	mux             *http.ServeMux // /healthz, /slack/* in http mode; other features (push webhooks) mount their routes here
	http            *http.Server
	ln              net.Listener
	mode            string // slack.mode, or "off"
	shutdownTimeout time.Duration
	sched           *ingest.Scheduler  // Confluence TTL syncs, git polls, retention, claim expiry
	git             *ingest.GitService // git webhooks, polls and runs
	claims          *weaviate.Claims   // deliveries and index leases shared with the other replicas (replicas.go)
	metrics         *metrics.Metrics
}

// Votes from Slack and Teams go to the Weaviate feedback collection.
var _ bot.FeedbackSink = (*weaviate.FeedbackLog)(nil)

// New builds the server of p: it opens the feedback and Delivery
// collections, schedules the Confluence re-syncs, the vote retention and
// the expiry of delivery claims, builds the git service, checks the Slack
// bot token (auth.test) and the Teams app id and password (a token),
// mounts the routes and listens on p.Listen or serve.listen. Nothing runs
// until Run. Its errors are those of the first step that failed; a listen
// error names serve.listen.
func New(ctx context.Context, p Parts) (*Server, error) {
	cfg := p.Config
	s := &Server{store: p.Store, log: p.Log, mode: cfg.Slack.Mode, shutdownTimeout: cfg.Serve.ShutdownTimeout, metrics: p.Metrics}
	if !cfg.SlackEnabled() {
		s.mode = "off"
	}
	votes, err := p.Store.OpenFeedback(ctx)
	if err != nil {
		return nil, err
	}
	// One answer pipeline, as in ask. /where-is lists locations, so it
	// shows more of them than an answer.
	lister := *p.Asker
	lister.TopK = max(p.Asker.TopK, 10)
	lister.Candidates = max(p.Asker.Candidates, lister.TopK)
	// One admission pool for every surface: they share Weaviate and the CPU.
	admission := bot.NewAdmission(bot.AdmissionConfig{Max: cfg.Serve.MaxConcurrentAnswers,
		Queue: cfg.Serve.AnswerQueueLength, Wait: cfg.Serve.AnswerQueueWait, OnReject: s.metrics.Refused})
	s.metrics.Admission(admission)
	var turns *weaviate.Turns // Teams channel threads' questions, for follow-ups
	if cfg.Teams.Enabled() {
		if turns, err = p.Store.OpenTurns(ctx); err != nil {
			return nil, err
		}
	}
	if err := s.index(ctx, p, votes, turns); err != nil {
		return nil, err
	}
	if err := s.chat(ctx, cfg, p.Secrets, admission.Wrap(p.Asker), admission.Wrap(&lister), votes, turns); err != nil {
		return nil, err
	}
	s.routes()
	listen := cmp.Or(p.Listen, cfg.Serve.Listen)
	s.ln, err = net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("serve.listen %s: %w", listen, err)
	}
	// Slack's payloads are small; these bound slow or stuck clients, not Slack.
	s.http = &http.Server{Handler: s.metrics.CountRequests(s.mux), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	return s, nil
}

// index sets up what keeps the index fresh, on one scheduler: the
// Confluence sources' re-syncs by TTL or schedule, the vote retention, the
// Delivery collection's claims and leases, and the git sources' push
// webhooks and polls.
func (s *Server) index(ctx context.Context, p Parts, votes *weaviate.FeedbackLog, turns *weaviate.Turns) error {
	cfg := p.Config
	s.sched = ingest.NewScheduler(ingest.SchedulerOptions{Log: s.log, OnSkip: s.metrics.ScheduleSkipped})
	if err := s.openClaims(ctx); err != nil {
		return err
	}
	pageIndexer := p.NewIndexer()
	pageIndexer.Log = s.log
	syncs := sources.Sources{Config: cfg, Log: s.log}.PageSyncs()
	if err := ingest.SchedulePageSyncs(ctx, s.sched, pageIndexer, syncs, s.indexLease(), s.metrics.ScheduleSkipped); err != nil {
		return err
	}
	// Votes and thread turns older than feedback.retention go, at start and daily.
	if err := (forget.Retention{Votes: votes, Turns: turns, Keep: cfg.Feedback.RetentionDuration, Now: time.Now, Log: s.log}).Schedule(s.sched); err != nil {
		return err
	}
	var err error
	if s.git, err = s.gitService(p); err != nil {
		return err
	}
	s.metrics.QueueDepth(s.git.QueueDepth)
	return nil
}

// routes mounts every HTTP route on a new mux.
func (s *Server) routes() {
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	s.Ready = readiness.New(s.readyCheck)
	s.mux.Handle("GET /readyz", s.Ready)              // internal/readiness
	s.mux.Handle("GET /metrics", s.metrics.Handler()) // Prometheus text format (internal/metrics)
	if s.Slack != nil && s.mode == config.SlackHTTP {
		s.Slack.Routes(s.mux)
	}
	if s.Teams != nil {
		s.Teams.Routes(s.mux) // POST /api/messages
	}
	// Push webhooks: POST /webhooks/<source name>, or /webhooks/ for an org-wide hook.
	hooks := s.git.Webhooks()
	if wh, ok := hooks.(*ingest.WebhookHandler); ok {
		wh.OnReject = func(reason string) { s.metrics.Rejected("/webhooks/", reason) }
	}
	s.mux.Handle("/webhooks/", s.metrics.CountWebhooks(hooks))
}

// Addr returns the address the HTTP server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }
