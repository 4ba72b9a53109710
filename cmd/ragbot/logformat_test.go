package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLogFormatJSON(t *testing.T) {
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "README.md": readme})
	cfg := writeConfig(t, repo)
	t.Cleanup(func() { dropCollection(t, cfg) })

	code, _, errOut := ragbot(t, "index", "--config", cfg, "-v", "--log-format", "json")
	if code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	var logged int
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("stderr line is not JSON: %v\n%s", err, line)
			continue
		}
		if rec["level"] == nil || rec["msg"] == nil {
			t.Errorf("log line lacks level or msg: %s", line)
		}
		logged++
	}
	if logged == 0 {
		t.Fatalf("index -v --log-format json logged nothing:\n%s", errOut)
	}
}

func TestLogFormatInvalid(t *testing.T) {
	code, _, errOut := ragbot(t, "validate", "--log-format", "xml")
	if code != 2 {
		t.Fatalf("exit %d, want 2 (usage)\n%s", code, errOut)
	}
	if !strings.Contains(errOut, `"xml"`) || !strings.Contains(errOut, "want text or json") {
		t.Errorf("error does not name the value and the allowed ones:\n%s", errOut)
	}
}
