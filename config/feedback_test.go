package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/config"
)

// TestFeedbackRetention: the default is 180 days; days, weeks and Go
// durations parse; a bad or too short value is named by its field.
func TestFeedbackRetention(t *testing.T) {
	dir := t.TempDir()
	noEnv := func(string) (string, bool) { return "", false }
	base := "sources:\n  - {name: docs, kind: markdown, path: .}\n"
	tests := []struct {
		yaml    string
		want    time.Duration
		wantErr string
	}{
		{"", 180 * 24 * time.Hour, ""},
		{"feedback: {retention: 30d}\n", 30 * 24 * time.Hour, ""},
		{"feedback: {retention: 2w}\n", 14 * 24 * time.Hour, ""},
		{"feedback: {retention: 4320h}\n", 4320 * time.Hour, ""},
		{"feedback: {retention: 12h}\n", 0, `feedback.retention: must be at least 24h (the retention job runs daily), got "12h"`},
		{"feedback: {retention: forever}\n", 0, `feedback.retention: want a positive duration such as 24h, 90m or 7d, got "forever"`},
	}
	for _, tt := range tests {
		cfg, err := config.Parse([]byte(base+tt.yaml), dir, noEnv)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%q: error %v, want %q", tt.yaml, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.yaml, err)
			continue
		}
		if got := cfg.Feedback.RetentionDuration; got != tt.want {
			t.Errorf("%q: retention %s, want %s", tt.yaml, got, tt.want)
		}
	}
}

// TestExcludeGlobs: git and markdown sources take globs in exclude, which
// must parse; html sources take prefixes only.
func TestExcludeGlobs(t *testing.T) {
	dir := t.TempDir()
	noEnv := func(string) (string, bool) { return "", false }
	ok := "sources:\n  - {name: docs, kind: markdown, path: ., exclude: [drafts, \"**/secret-*.md\"]}\n"
	if _, err := config.Parse([]byte(ok), dir, noEnv); err != nil {
		t.Errorf("valid globs: %v", err)
	}
	bad := "sources:\n  - {name: docs, kind: markdown, path: ., exclude: [\"drafts/[a-\"]}\n  - {name: wiki, kind: html, path: ., exclude: [\"*.htm\"]}\n"
	_, err := config.Parse([]byte(bad), dir, noEnv)
	want := []string{`sources[0].exclude[0]: not a valid glob: "drafts/[a-"`, `sources[1].exclude[0]: html sources take path prefixes, not globs, got "*.htm"`}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v, want it to contain %q", err, w)
		}
	}
}
