package serve

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/config/configtest"
)

// TestChannelAccess: the access section's source names become source ids,
// per channel and by default; ACL groups keep their names.
func TestChannelAccess(t *testing.T) {
	dir := t.TempDir()
	cfg := configtest.Load(t, "", fmt.Sprintf(`sources:
  - {name: app, kind: git, path: %s, acl: [payments]}
  - {name: notes, kind: markdown, path: %s}
access:
  default: [notes]
  channels:
    C0PAY: [app, notes]
  groups:
    payments: [U0ANN]
`, dir, dir))
	want := bot.Access{Default: []string{"docs:notes"}, Channels: map[string][]string{"C0PAY": {"repo:app", "docs:notes"}},
		Groups: map[string][]string{"payments": {"U0ANN"}}}
	if diff := cmp.Diff(want, channelAccess(cfg)); diff != "" {
		t.Errorf("channelAccess (-want +got):\n%s", diff)
	}
}
