package bot_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/retrieval"
)

// surface records replies; failPosts makes the next posts or updates fail.
type surface struct {
	mu        sync.Mutex
	log       []string // "post <kind>" / "update <ts> <kind>"
	earlier   []string
	failNext  int
	questions []string
}

func (s *surface) Reply(ctx context.Context, to bot.Thread, ts string, r bot.Reply) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err // as a real client would
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failNext > 0 {
		s.failNext--
		return "", errors.New("slack: channel_not_found")
	}
	if ts == "" {
		ts = fmt.Sprintf("100.%d", len(s.log))
		s.log = append(s.log, fmt.Sprintf("post %s in %s/%s: %s", ts, to.Channel, to.TS, r.Kind))
		return ts, nil
	}
	s.log = append(s.log, fmt.Sprintf("update %s: %s %q", ts, r.Kind, r.Answer.Question))
	return ts, nil
}

func (s *surface) Earlier(context.Context, bot.Thread, string) ([]string, error) {
	return s.earlier, nil
}

func (s *surface) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// answerer returns a fixed answer or error and records the requests.
type answerer struct {
	mu    sync.Mutex
	err   error
	block chan struct{} // when set, Ask waits for it or ctx
	reqs  []retrieval.Request
}

func (a *answerer) Ask(ctx context.Context, r retrieval.Request) (retrieval.Answer, error) {
	a.mu.Lock()
	a.reqs = append(a.reqs, r)
	a.mu.Unlock()
	if a.block != nil {
		select {
		case <-a.block:
		case <-ctx.Done():
			return retrieval.Answer{}, ctx.Err()
		}
	}
	if a.err != nil {
		return retrieval.Answer{}, a.err
	}
	return retrieval.Answer{Question: r.Question, Coverage: retrieval.Covered}, nil
}

func newBot(s *surface, a *answerer) *bot.Bot {
	return bot.New(bot.Config{Answerer: a, Surface: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Access: bot.Access{Default: []string{"repo:payments"}, Channels: map[string][]string{"C0NONE": {}}}})
}

func TestHandle(t *testing.T) {
	root := bot.Thread{Channel: "C1", TS: "50.1"}
	tests := []struct {
		name     string
		mention  bot.Mention
		earlier  []string
		askErr   error
		failNext int
		want     []string
		wantReq  []retrieval.Request
	}{
		{
			name:    "searching, then the answer replaces it",
			mention: bot.Mention{DeliveryID: "Ev1", Thread: root, TS: "50.1", Text: "where is the retry?"},
			want:    []string{"post 100.0 in C1/50.1: searching", `update 100.0: answered "where is the retry?"`},
			wantReq: []retrieval.Request{{Question: "where is the retry?", Sources: []string{"repo:payments"}}},
		},
		{
			name:    "a follow-up in a thread searches with the thread's terms",
			mention: bot.Mention{DeliveryID: "Ev1", Thread: root, TS: "60.1", InThread: true, Text: "and for v2?"},
			earlier: []string{"where is the orders handler?"},
			want:    []string{"post 100.0 in C1/50.1: searching", `update 100.0: answered "and for v2? orders handler"`},
			wantReq: []retrieval.Request{{Question: "and for v2? orders handler", Sources: []string{"repo:payments"},
				Thread: []string{"where is the orders handler?", "and for v2?"}}},
		},
		{
			name:    "search failure is said",
			mention: bot.Mention{DeliveryID: "Ev1", Thread: root, TS: "50.1", Text: "where is the retry?"},
			askErr:  errors.New("weaviate hybrid search: connection refused"),
			want:    []string{"post 100.0 in C1/50.1: searching", `update 100.0: unavailable ""`},
			wantReq: []retrieval.Request{{Question: "where is the retry?", Sources: []string{"repo:payments"}}},
		},
		{
			name:    "a channel without sources is not searched",
			mention: bot.Mention{DeliveryID: "Ev1", Thread: bot.Thread{Channel: "C0NONE", TS: "50.1"}, TS: "50.1", Text: "where is the retry?"},
			want:    []string{"post 100.0 in C0NONE/50.1: searching", `update 100.0: no_sources ""`},
		},
		{
			name:    "an empty mention gets help",
			mention: bot.Mention{DeliveryID: "Ev1", Thread: root, TS: "50.1"},
			want:    []string{"post 100.0 in C1/50.1: help"},
		},
		{
			name:     "a failed post leaves nothing and no search",
			mention:  bot.Mention{DeliveryID: "Ev1", Thread: root, TS: "50.1", Text: "q"},
			failNext: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &surface{earlier: tt.earlier, failNext: tt.failNext}
			a := &answerer{err: tt.askErr}
			b := newBot(s, a)
			if !b.Handle(tt.mention) {
				t.Fatal("Handle refused a new delivery")
			}
			if err := b.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, s.got()); diff != "" {
				t.Errorf("replies (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantReq, a.reqs); diff != "" {
				t.Errorf("searches (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetryAfterFailure checks that a retry of a delivery whose answer could
// not be posted replaces the "searching" reply the first attempt left,
// instead of posting a second one, and that later retries are refused.
func TestRetryAfterFailure(t *testing.T) {
	s := &surface{}
	a := &answerer{block: make(chan struct{})}
	b := newBot(s, a)
	m := bot.Mention{DeliveryID: "Ev9", Thread: bot.Thread{Channel: "C1", TS: "50.1"}, TS: "50.1", Text: "q"}
	b.Handle(m)
	s.mu.Lock()
	s.failNext = 1 // "searching" is posted; the answer's update will fail
	s.mu.Unlock()
	close(a.block)
	_ = b.Wait(context.Background())
	if !b.Handle(m) {
		t.Fatal("a retry after a failed answer was refused")
	}
	_ = b.Wait(context.Background())
	want := []string{"post 100.0 in C1/50.1: searching", `update 100.0: answered "q"`}
	if diff := cmp.Diff(want, s.got()); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
	if b.Handle(m) {
		t.Error("a retry of an answered delivery was handled")
	}
}

// TestShutdown checks that Shutdown lets an answer in flight finish, refuses
// new work, and cancels work that outlives its deadline.
func TestShutdown(t *testing.T) {
	s := &surface{}
	a := &answerer{block: make(chan struct{})}
	b := newBot(s, a)
	b.Handle(bot.Mention{DeliveryID: "Ev1", Thread: bot.Thread{Channel: "C1", TS: "1.1"}, TS: "1.1", Text: "q"})
	shutdown := make(chan error, 1)
	go func() { shutdown <- b.Shutdown(context.Background()) }() // exits when Shutdown returns
	// Go refuses work once Shutdown has begun; until then it runs a no-op
	// that Shutdown also waits for.
	for b.Go(func(context.Context) {}) {
		runtime.Gosched()
	}
	select {
	case err := <-shutdown:
		t.Fatalf("Shutdown returned %v while an answer was in flight", err)
	default:
	}
	close(a.block)
	if err := <-shutdown; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if got := s.got(); len(got) != 2 {
		t.Errorf("in-flight answer after Shutdown: %q, want searching + answer", got)
	}
	if b.Handle(bot.Mention{DeliveryID: "Ev2", Text: "q"}) {
		t.Error("Handle accepted work after Shutdown")
	}

	s2 := &surface{}
	b2 := newBot(s2, &answerer{block: make(chan struct{})}) // never unblocks
	b2.Handle(bot.Mention{DeliveryID: "Ev1", Thread: bot.Thread{Channel: "C1", TS: "1.1"}, TS: "1.1", Text: "q"})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := b2.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown past its deadline = %v, want DeadlineExceeded", err)
	}
	// The cancelled search still replaced "searching" with "unavailable".
	want := []string{"post 100.0 in C1/1.1: searching", `update 100.0: unavailable ""`}
	if diff := cmp.Diff(want, s2.got()); diff != "" {
		t.Errorf("replies of the cancelled answer (-want +got):\n%s", diff)
	}
}
