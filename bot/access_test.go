package bot_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/bot"
)

func TestGroupsFor(t *testing.T) {
	a := bot.Access{Groups: map[string][]string{
		"finance": {"U0ALICE", "C0FIN"},
		"hr":      {"U0ALICE", "U0BOB"},
		"ops":     {"C0OPS", "D0ALICE"},
	}}
	tests := []struct {
		name               string
		conversation, user string
		private            bool
		want               []string
	}{
		{"a member in a direct message", "D0XYZ", "U0ALICE", true, []string{"finance", "hr"}},
		{"a member in a shared channel: the user's groups do not apply", "C0GENERAL", "U0ALICE", false, nil},
		{"a listed channel, anyone in it", "C0FIN", "U0CAROL", false, []string{"finance"}},
		{"a listed channel and a member, private", "C0FIN", "U0BOB", true, []string{"finance", "hr"}},
		{"a listed direct-message conversation", "D0ALICE", "U0ALICE", true, []string{"finance", "hr", "ops"}},
		{"nobody", "C0GENERAL", "U0CAROL", true, nil},
		{"no user", "C0GENERAL", "", true, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, a.GroupsFor(tt.conversation, tt.user, tt.private)); diff != "" {
			t.Errorf("%s: GroupsFor(%q, %q, %v) (-want +got):\n%s", tt.name, tt.conversation, tt.user, tt.private, diff)
		}
	}
	if got := (bot.Access{}).GroupsFor("C0FIN", "U0ALICE", true); got != nil {
		t.Errorf("no groups configured: %v", got)
	}
}
