package bot_test

import (
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot"
)

// clock is a settable time for Deliveries.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestDeliveries(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	d := bot.NewDeliveries(15*time.Minute, 3, c.now)
	claim := func(id string, wantTS string, wantOK bool) {
		t.Helper()
		ts, ok := d.Claim(id)
		if ts != wantTS || ok != wantOK {
			t.Errorf("Claim(%q) = %q, %v; want %q, %v", id, ts, ok, wantTS, wantOK)
		}
	}
	claim("Ev1", "", true)
	claim("Ev1", "", false) // a retry while the first is answered
	d.SetReply("Ev1", "1712345681.000400")
	d.Done("Ev1")
	claim("Ev1", "", false) // a retry after the answer

	claim("Ev2", "", true)
	d.SetReply("Ev2", "1712345682.000500")
	d.Fail("Ev2")
	claim("Ev2", "1712345682.000500", true) // a retry after a failure reuses the reply
	claim("Ev2", "", false)

	claim("", "", true) // no id: never deduplicated
	claim("", "", true)

	c.t = c.t.Add(15 * time.Minute)
	claim("Ev1", "", true) // forgotten after the TTL
	if n := d.Len(); n != 1 {
		t.Errorf("Len() after expiry = %d, want 1 (Ev1 again)", n)
	}

	for _, id := range []string{"Ev3", "Ev4", "Ev5"} {
		claim(id, "", true)
	}
	if n := d.Len(); n != 3 {
		t.Errorf("Len() = %d, want the maximum 3", n)
	}
	claim("Ev3", "", false) // still remembered
	claim("Ev1", "", true)  // the oldest was dropped to stay within 3
}
