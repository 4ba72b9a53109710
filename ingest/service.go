package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// GitService keeps the git sources of `ragbot serve` indexed: push webhooks
// (Webhooks) and polls (Repo.Poll, on a Scheduler) trigger runs through one
// Queue, so that runs of a source never overlap and bursts coalesce; each
// run fetches a remote source and indexes it incrementally (IndexRepo).
type GitService struct {
	ix    *Indexer
	repos map[string]Repo
	order []string
	queue *Queue
	sched *Scheduler
	own   bool // sched was made here: Run starts and stops it
	log   *slog.Logger
}

// GitServiceOptions configure a GitService. Zero values take the defaults.
type GitServiceOptions struct {
	Queue QueueOptions // Settle, backoff, clock, OnDone
	// Scheduler fires the polls. Pass the scheduler serve shares with the
	// Confluence TTLs; nil makes one, which Run starts and stops.
	Scheduler *Scheduler
	Log       *slog.Logger // [slog.Default()]
}

// NewGitService returns a service for repos, indexed by ix (whose LockDir
// should be set). Errors: two repos with one name.
func NewGitService(ix *Indexer, repos []Repo, opt GitServiceOptions) (*GitService, error) {
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Queue.Log == nil {
		opt.Queue.Log = opt.Log
	}
	s := &GitService{ix: ix, repos: map[string]Repo{}, sched: opt.Scheduler, log: opt.Log}
	for _, r := range repos {
		if _, dup := s.repos[r.Name]; dup {
			return nil, fmt.Errorf("ingest: two git sources named %q", r.Name)
		}
		s.repos[r.Name] = r
		s.order = append(s.order, r.Name)
	}
	if s.sched == nil {
		s.sched = NewScheduler(SchedulerOptions{Clock: opt.Queue.Clock, Log: opt.Log})
		s.own = true
	}
	s.queue = NewQueue(s.index, opt.Queue)
	return s, nil
}

// Webhooks returns the push-hook handler (see WebhookHandler). Mount it
// under a prefix, e.g. mux.Handle("/webhooks/", svc.Webhooks()); hooks then
// post to /webhooks/<source name>, or to /webhooks/ for an organisation hook.
func (s *GitService) Webhooks() http.Handler {
	repos := make([]Repo, 0, len(s.order))
	for _, n := range s.order {
		repos = append(repos, s.repos[n])
	}
	return &WebhookHandler{Repos: repos, Trigger: s.queue.Push, Log: s.log}
}

// Status reports the queue's state of the source called name.
func (s *GitService) Status(name string) QueueStatus { return s.queue.Status(name) }

// Run indexes every source once (catching up on pushes missed while ragbot
// was down), schedules the polls, and runs the queue until ctx ends; it
// returns after the runs under way have returned (each records its outcome
// in SourceState).
func (s *GitService) Run(ctx context.Context) error {
	for _, name := range s.order {
		r := s.repos[name]
		if r.Poll <= 0 {
			s.queue.Trigger(name, "", "startup")
			continue
		}
		// The first poll fires at once (last is zero): the startup run.
		err := s.sched.Add("git:"+name, EverySpec(r.Poll), time.Time{}, func(context.Context) error {
			s.queue.Trigger(name, "", "poll")
			return nil
		})
		if err != nil {
			return fmt.Errorf("ingest: %s: %w", r.Source.ID, err)
		}
	}
	if s.own {
		s.sched.Start()
		defer func() { _ = s.sched.Stop(context.Background()) }()
	}
	return s.queue.Run(ctx)
}

// index is the queue's IndexFunc.
func (s *GitService) index(ctx context.Context, name string, branches []string) error {
	r, ok := s.repos[name]
	if !ok {
		return fmt.Errorf("ingest: no git source named %q", name)
	}
	_, err := s.ix.IndexRepo(ctx, r, branches, false) // each run logs its summary line
	return err
}
