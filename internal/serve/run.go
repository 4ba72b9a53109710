package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// Run serves until ctx ends (SIGINT/SIGTERM in main) or a transport fails,
// then shuts down: Socket Mode is closed and the HTTP server stops taking
// requests (http.Server.Shutdown), in-flight answers finish, all within
// serve.shutdown_timeout, after which the answers still running are
// cancelled; a second signal cancels them at once. It waits for the
// scheduled runs and the git runs under way, and returns the failure that
// stopped it, or nil. The caller then stops the local Weaviate.
func (s *Server) Run(ctx context.Context) error {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	errc := make(chan error, 3)
	var wg sync.WaitGroup
	wg.Go(func() { // exits when Shutdown closes the listener
		if err := s.http.Serve(s.ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("http server: %w", err)
		}
	})
	if s.Slack != nil && s.mode == config.SlackSocket {
		wg.Go(func() { // exits when runCtx ends, or Slack refuses the app token
			if err := s.Slack.RunSocketMode(runCtx); err != nil {
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
	s.log.Info("ragbot serve running", "listen", "http://"+s.Addr(), "slack_mode", s.mode, "teams", s.Teams != nil)
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
	if s.Slack != nil {
		if err := s.Slack.Shutdown(hard); err != nil {
			s.log.Warn("answers cancelled at shutdown", "surface", "slack", "err", err)
		}
	}
	if s.Teams != nil {
		if err := s.Teams.Shutdown(hard); err != nil {
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

// readyCheck is /readyz's check: the store able to answer (Weaviate
// answers and the chunk collection exists; a partial or read-only index
// is ready but degraded, weaviate.DegradedError) and, in Socket Mode, a
// Slack connection open (events reach this process only through it).
func (s *Server) readyCheck(ctx context.Context) error {
	err := s.store.Ready(ctx)
	var degraded *weaviate.DegradedError
	if err != nil && !errors.As(err, &degraded) {
		return err
	}
	if s.Slack != nil && s.mode == config.SlackSocket && !s.Slack.SocketConnected() {
		return errors.New("slack socket mode not connected")
	}
	return err // nil, or ready but degraded
}
