package lograte

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestHandler: repeated Warn and Error lines of one cause pass once per
// interval, the next carrying how many were dropped; other causes, Info
// lines and loggers made With attributes are counted apart or not at all.
func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(1_800_000_000, 0)
	base := slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})
	log := slog.New(New(base, 10*time.Second, func() time.Time { return now }))
	for i := range 3 { // a question each: Weaviate down
		log.With("request_id", i).Error("search failed; told the user it is unavailable", "err", "dial tcp: connection refused")
		log.Warn("weaviate search failed", "query", "q", "err", "connection refused")
		log.Info("question", "n", i)
	}
	log.Warn("busy: question refused", "reason", "deadline")
	log.Warn("busy: question refused", "reason", "queue_full")
	log.Warn("busy: question refused", "reason", "deadline")
	log.With("source", "a").Warn("index run failed")
	log.With("source", "b").Warn("index run failed")
	now = now.Add(11 * time.Second)
	log.Error("search failed; told the user it is unavailable", "err", "dial tcp: connection refused")
	got := buf.String()
	for _, want := range []struct {
		part string
		n    int
	}{
		{"msg=\"search failed; told the user it is unavailable\"", 2},
		{"msg=\"weaviate search failed\"", 1},
		{"msg=question", 3},
		{"reason=deadline", 1},
		{"reason=queue_full", 1},
		{"suppressed=2", 1},
		{"msg=\"index run failed\"", 2},
	} {
		if n := strings.Count(got, want.part); n != want.n {
			t.Errorf("%d lines with %s, want %d:\n%s", n, want.part, want.n, got)
		}
	}
}
