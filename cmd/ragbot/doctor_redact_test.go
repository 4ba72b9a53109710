package main

import (
	"strings"
	"testing"
)

// TestDoctorRedaction: doctor and validate both fail on a rule id gitleaks
// does not have, naming the field (the lines of each redaction setting
// are tested in internal/doctor). Weaviate is left unreachable: these
// checks need none.
func TestDoctorRedaction(t *testing.T) {
	t.Setenv("RAGBOT_TEST_DOCTOR_HOOK", "s3cret")
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo})
	const want = `indexing.redact_disable_rules: "no-such-rule" is not a rule id of gitleaks`
	cfg := doctorConfig(t, "http://127.0.0.1:1", "Unused", repo, "indexing:\n  redact_disable_rules: [no-such-rule]\n")
	_, out, _ := ragbot(t, "doctor", "--config", cfg)
	wantLines(t, out, "FAIL redaction: "+want)
	if code, _, errOut := ragbot(t, "validate", "--config", cfg); code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("validate with an unknown rule id: exit %d, %s; want 1 naming the field", code, errOut)
	}
}
