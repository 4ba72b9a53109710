package ingest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sync"
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
	clock Clock
	lease *Leased           // nil: runs are exclusive on this machine only (lease.go)
	skip  func(name string) // GitServiceOptions.OnLeaseSkip

	mu      sync.Mutex
	deleted map[string]map[string]bool // source name -> branches deleted by a push, to remove at its next run
	pushed  map[string]bool            // source name -> a push is waiting for its next run
}

// GitServiceOptions configure a GitService. Zero values take the defaults.
type GitServiceOptions struct {
	Queue QueueOptions // Settle, backoff, clock, OnDone
	// Scheduler fires the polls. Pass the scheduler serve shares with the
	// Confluence TTLs; nil makes one, which Run starts and stops.
	Scheduler *Scheduler
	Log       *slog.Logger // [slog.Default()]
	// Lease, when its Leaser is set, makes the runs of a source exclusive
	// across serve replicas: a run first takes the lease "git:<source
	// name>". A run that finds it held by another replica is skipped when
	// a poll or the startup triggered it (the holder's run, or the next
	// poll, indexes the head), and deferred when a push did, until the
	// holder's run is over: it retries every TTL/4, at most until the
	// holder's lease ends, so a push is indexed after the run under way
	// on another replica even when that replica dies.
	Lease Leased
	// OnLeaseSkip, when set, is called for each run skipped because another
	// replica held the source's lease (metrics). It must not block.
	OnLeaseSkip func(source string)
}

// NewGitService returns a service for repos, indexed by ix (whose LockDir
// should be set). Errors: two repos with one name.
func NewGitService(ix *Indexer, repos []Repo, opt GitServiceOptions) (*GitService, error) {
	opt.Log = cmp.Or(opt.Log, slog.Default())
	opt.Queue.Log = cmp.Or(opt.Queue.Log, opt.Log)
	s := &GitService{ix: ix, repos: map[string]Repo{}, sched: opt.Scheduler, log: opt.Log, clock: opt.Queue.Clock,
		skip: opt.OnLeaseSkip, deleted: map[string]map[string]bool{}, pushed: map[string]bool{}}
	if s.clock == nil {
		s.clock = realClock{}
	}
	if opt.Lease.Leaser != nil {
		s.lease = &opt.Lease
		if s.lease.Clock == nil {
			s.lease.Clock = s.clock
		}
		if s.lease.Log == nil {
			s.lease.Log = opt.Log
		}
	}
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

// QueueDepth is the index queue's Depth: git sources with a run waiting,
// and with one under way.
func (s *GitService) QueueDepth() (pending, running int) { return s.queue.Depth() }

// Webhooks returns the push-hook handler (see WebhookHandler). Mount it
// under a prefix, e.g. mux.Handle("/webhooks/", svc.Webhooks()); hooks then
// post to /webhooks/<source name>, or to /webhooks/ for an organisation hook.
func (s *GitService) Webhooks() http.Handler {
	repos := make([]Repo, 0, len(s.order))
	for _, n := range s.order {
		repos = append(repos, s.repos[n])
	}
	return &WebhookHandler{Repos: repos, Trigger: s.push, Delete: s.deleteBranch, Log: s.log}
}

// push queues a run of a pushed branch; a branch pushed again after its
// deletion is indexed, not removed.
func (s *GitService) push(name, branch, reason string) {
	s.mu.Lock()
	delete(s.deleted[name], branch)
	s.pushed[name] = true
	s.mu.Unlock()
	s.queue.Push(name, branch, reason)
}

// deleteBranch queues the removal of a deleted branch: the queue's next run
// of the source removes its chunks and state (Indexer.DeleteBranch), so it
// never overlaps an index run of the source.
func (s *GitService) deleteBranch(name, branch, reason string) {
	s.mu.Lock()
	if s.deleted[name] == nil {
		s.deleted[name] = map[string]bool{}
	}
	s.deleted[name][branch] = true
	s.pushed[name] = true
	s.mu.Unlock()
	s.queue.Push(name, branch, reason)
}

// takeDeleted returns which of branches (nil: any) of the source called
// name were deleted by a push, forgetting them, and the branches left to
// index; when every asked branch was deleted, rest is empty, not nil.
func (s *GitService) takeDeleted(name string, branches []string) (gone, rest []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	marked := s.deleted[name]
	if branches == nil {
		delete(s.deleted, name)
		return slices.Sorted(maps.Keys(marked)), nil
	}
	rest = []string{}
	for _, b := range branches {
		if marked[b] {
			gone = append(gone, b)
			delete(marked, b)
		} else {
			rest = append(rest, b)
		}
	}
	return gone, rest
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

// index is the queue's IndexFunc: run, under the source's lease across
// replicas when there is one (GitServiceOptions.Lease).
func (s *GitService) index(ctx context.Context, name string, branches []string) error {
	if s.lease == nil {
		return s.run(ctx, name, branches)
	}
	s.mu.Lock()
	pushed := s.pushed[name]
	delete(s.pushed, name)
	s.mu.Unlock()
	held, err := s.lease.Run(ctx, "git:"+name, func(ctx context.Context) error { return s.run(ctx, name, branches) })
	if held == nil {
		if err != nil && pushed { // the queue's retry of the failed run still owes the push
			s.mu.Lock()
			s.pushed[name] = true
			s.mu.Unlock()
		}
		return err
	}
	holder, until := held.LeaseHeld()
	if !pushed {
		s.log.Info("index run skipped: another replica holds the source's lease", "source", name, "holder", holder, "until", until)
		if s.skip != nil {
			s.skip(name)
		}
		return nil
	}
	s.mu.Lock()
	s.pushed[name] = true
	s.mu.Unlock()
	now := s.clock.Now()
	wait := max(min(until.Sub(now), s.lease.ttl()/4), time.Second)
	return &RetryLater{At: now.Add(wait), Reason: "a push waits for the run of " + holder + ", which holds the lease of " + name}
}

// run is one index run of the source called name: the branches deleted by
// pushes are removed, the others indexed.
func (s *GitService) run(ctx context.Context, name string, branches []string) error {
	r, ok := s.repos[name]
	if !ok {
		return fmt.Errorf("ingest: no git source named %q", name)
	}
	gone, rest := s.takeDeleted(name, branches)
	var errs []error
	for _, b := range gone {
		if _, err := s.ix.DeleteBranch(ctx, r, b); err != nil {
			errs = append(errs, err)
			s.mu.Lock() // the queue retries the run: remove it then
			if s.deleted[name] == nil {
				s.deleted[name] = map[string]bool{}
			}
			s.deleted[name][b] = true
			s.mu.Unlock()
		}
	}
	if branches == nil || len(rest) > 0 {
		_, err := s.ix.IndexRepo(ctx, r, rest, false) // each run logs its summary line; a missing branch is skipped
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
