// Package lograte limits repeated log lines: a slog.Handler that lets one
// Warn or Error record per cause through per interval and counts the
// others, so that a failure every question meets (Weaviate unavailable,
// the bot busy) writes a line every few seconds instead of several per
// question.
package lograte

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// keyAttrs are the attributes that tell causes apart.
var keyAttrs = map[string]bool{"reason": true, "source": true, "repo": true, "branch": true, "surface": true,
	"provider": true, "guard": true, "method": true, "breaker": true, "path": true, "file": true, "page_id": true, "class": true}

// DefaultEvery is how often a cause is logged at most.
const DefaultEvery = 10 * time.Second

// Handler wraps a slog.Handler. A record's cause is its level, message and
// the values of its identity attributes (keyAttrs: which source, branch,
// surface, file or reason), its own or added by With; never the question, user,
// request id or error text, which differ every time. Records below Warn pass through.
// The first record of a cause passes; the others within Every are dropped
// and counted, and the next one that passes carries "suppressed": the
// count. It is safe for concurrent use.
type Handler struct {
	next  slog.Handler
	scope string // keyAttrs added by WithAttrs
	every time.Duration
	now   func() time.Time
	state *state
}

type state struct {
	mu      sync.Mutex
	last    map[string]time.Time
	dropped map[string]int
}

// New returns a Handler over next letting one record per cause through
// per every (DefaultEvery when 0); now is its clock [time.Now].
func New(next slog.Handler, every time.Duration, now func() time.Time) *Handler {
	if every <= 0 {
		every = DefaultEvery
	}
	if now == nil {
		now = time.Now
	}
	return &Handler{next: next, every: every, now: now, state: &state{last: map[string]time.Time{}, dropped: map[string]int{}}}
}

// Enabled is next's.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// Handle passes r on unless its cause was logged within Every.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return h.next.Handle(ctx, r)
	}
	key := r.Level.String() + "|" + r.Message + h.scope
	r.Attrs(func(a slog.Attr) bool {
		if keyAttrs[a.Key] {
			key += "|" + a.Key + "=" + a.Value.String()
		}
		return true
	})
	s := h.state
	s.mu.Lock()
	now := h.now()
	if last, ok := s.last[key]; ok && now.Sub(last) < h.every {
		s.dropped[key]++
		s.mu.Unlock()
		return nil
	}
	s.last[key] = now
	n := s.dropped[key]
	delete(s.dropped, key)
	s.mu.Unlock()
	if n > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("suppressed", n))
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs and WithGroup keep the limits shared: a logger made With
// attributes (a request id, a surface) still counts its lines with the
// others of the same cause.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	scope := h.scope
	for _, a := range as {
		if keyAttrs[a.Key] {
			scope += "|" + a.Key + "=" + a.Value.String()
		}
	}
	return &Handler{next: h.next.WithAttrs(as), scope: scope, every: h.every, now: h.now, state: h.state}
}

// WithGroup: see WithAttrs.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), scope: h.scope + "|" + name + ".", every: h.every, now: h.now, state: h.state}
}

var _ slog.Handler = (*Handler)(nil)
