package main

import (
	"strings"
	"testing"
)

// TestDoctorRedaction: doctor says redaction is on by default, warns when
// indexing.redact is false, and fails on a rule id gitleaks does not have
// (as validate does). Weaviate is left unreachable: these checks need none.
func TestDoctorRedaction(t *testing.T) {
	t.Setenv("RAGBOT_TEST_DOCTOR_HOOK", "s3cret")
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo})
	for _, tc := range []struct {
		name, extra, want string
	}{
		{"default", "", "ok   redaction: secrets replaced at index time (0 rules off, 0 paths allowed)"},
		{"off", "indexing:\n  redact: false\n", "warn redaction: indexing.redact is false: secrets committed in the sources are stored and posted to chat as they are; fix: "},
		{"unknown rule", "indexing:\n  redact_disable_rules: [no-such-rule]\n", `FAIL redaction: indexing.redact_disable_rules: "no-such-rule" is not a rule id of gitleaks`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := doctorConfig(t, "http://127.0.0.1:1", "Unused", repo, tc.extra)
			_, out, _ := ragbot(t, "doctor", "--config", cfg)
			wantLines(t, out, tc.want)
		})
	}
	cfg := doctorConfig(t, "http://127.0.0.1:1", "Unused", repo, "indexing:\n  redact_disable_rules: [no-such-rule]\n")
	if code, _, errOut := ragbot(t, "validate", "--config", cfg); code != 1 || !strings.Contains(errOut, `indexing.redact_disable_rules: "no-such-rule" is not a rule id of gitleaks`) {
		t.Errorf("validate with an unknown rule id: exit %d, %s; want 1 naming the field", code, errOut)
	}
}
