package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSubcommandHelp runs the CLI as a user would on the help and typo
// paths of the commands that have subcommands, and serve's help: each
// prints its own text with exit 0, and a mistyped subcommand is a usage
// error (exit 2) naming the closest one.
func TestSubcommandHelp(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		want     []string // in stdout+stderr
		dontWant []string
	}{
		{args: []string{"feedback", "-h"}, code: 0, want: []string{"ragbot feedback export writes", `"ragbot feedback export -h" for its flags`}},
		{args: []string{"feedback", "--help"}, code: 0, want: []string{"ragbot feedback export writes"}},
		{args: []string{"feedback", "export", "-h"}, code: 0, want: []string{"ragbot feedback export writes", "-down file"}},
		{args: []string{"feedback", "exprot"}, code: 2, want: []string{`unknown subcommand "exprot"; did you mean "export"?`}},
		{args: []string{"feedback", "xyz"}, code: 2, want: []string{`unknown subcommand "xyz" (ragbot feedback export`}, dontWant: []string{"did you mean"}},
		{args: []string{"feedback"}, code: 2, want: []string{"feedback needs a subcommand"}},
		{args: []string{"serve", "-h"}, code: 0, want: []string{"/webhooks/<source name>", "webhook_secret_env", "poll_interval", "schedule", "ttl", "-listen host:port"}},
		{args: []string{"valdiate"}, code: 2, want: []string{`unknown command "valdiate"; did you mean "validate"?`}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := ragbot(t, tt.args...)
			all := out + errOut
			if code != tt.code {
				t.Errorf("exit %d, want %d; output:\n%s", code, tt.code, all)
			}
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(all, w) {
					t.Errorf("output has %q:\n%s", w, all)
				}
			}
		})
	}
}

// TestValidateReportsAll: `ragbot validate` on a file with a mistyped key, a
// value of the wrong type and a missing path reports the three at once,
// the key with its closest valid name.
func TestValidateReportsAll(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ragbot.yaml")
	cfg := "weaviate:\n  timout: 5s\nretrieval:\n  top_k: many\nsources:\n  - name: app\n    kind: git\n    path: nowhere\n"
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ragbot(t, "validate", "--config", path)
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q, want 1 and nothing", code, out)
	}
	for _, w := range []string{
		"weaviate.timout (line 2): unknown key; did you mean timeout?\n",
		`retrieval.top_k (line 4): want a whole number, got "many"` + "\n",
		`sources[0].path: "nowhere" does not exist` + "\n",
	} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
}
