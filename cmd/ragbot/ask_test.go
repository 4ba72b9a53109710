package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAskWeaviateUnreachable: with weaviate.url pointing at a closed port,
// ask names the URL and how to start a server, not the client's internals.
func TestAskWeaviateUnreachable(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := "weaviate:\n  url: http://127.0.0.1:1\nsources:\n  - name: httpx\n    kind: git\n    path: " + t.TempDir() + "\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := ragbot(t, "ask", "--config", cfg, "where is the retry?")
	want := "ragbot ask: cannot reach Weaviate at http://127.0.0.1:1: is it running? (`ragbot weaviate`)\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and:\n%s", code, errOut, want)
	}
	// After --, a question may start with a dash; it gets as far as Weaviate.
	if code, _, errOut := ragbot(t, "ask", "--config", cfg, "--", "--cluster.settle-timeout"); code != 1 || errOut != want {
		t.Errorf("ask -- --cluster.settle-timeout: exit %d, stderr:\n%s", code, errOut)
	}
}

// TestAskUsageErrors: a question starting with a dash without -- and a
// mistyped --source are usage errors that say what to do, caught before
// Weaviate is contacted (the config's URL is a closed port).
func TestAskUsageErrors(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := "weaviate:\n  url: http://127.0.0.1:1\nsources:\n  - name: httpx\n    kind: git\n    path: " + t.TempDir() + "\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string // the last line of stderr
	}{
		{[]string{"--cluster.settle-timeout", "is what?"},
			`ragbot ask: usage: flag provided but not defined: -cluster.settle-timeout (a question that starts with a dash goes after --: ragbot ask -- "-x ...")`},
		{[]string{"where is the retry?", "--source", "htpx"},
			`ragbot ask: usage: --source "htpx" is not a configured source; did you mean "httpx"?`},
		{[]string{"--source", "payments", "where is the retry?"},
			`ragbot ask: usage: --source "payments" is not a configured source (configured: httpx)`},
		{[]string{"--source", "HTT", "where is the retry?"}, // the only name containing it
			`ragbot ask: usage: --source "HTT" is not a configured source; did you mean "httpx"?`},
	}
	for _, tt := range tests {
		code, _, errOut := ragbot(t, append([]string{"ask", "--config", cfg}, tt.args...)...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != 2 || lines[len(lines)-1] != tt.want {
			t.Errorf("ask %q: exit %d, stderr:\n%s\nwant exit 2, last line:\n%s", tt.args, code, errOut, tt.want)
		}
	}
}

// TestAskNotIndexed: before `ragbot index` the scope holds no chunks, and
// ask says so instead of "no coverage"; --json has "snippets": []. After
// indexing, --explain says why an unrelated question is refused.
func TestAskNotIndexed(t *testing.T) {
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "README.md": readme})
	cfg := writeConfig(t, repo)
	t.Cleanup(func() { dropCollection(t, cfg) })

	code, out, errOut := ragbot(t, "ask", "--config", cfg, "where is the retry for 503 errors decided?")
	want := "Not indexed yet: httpx. Run `ragbot index --config " + cfg + "` first.\n"
	if code != 0 || out != want {
		t.Errorf("ask before index: exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", code, out, want, errOut)
	}
	code, out, errOut = ragbot(t, "ask", "--config", cfg, "where is the retry?", "--json") // a flag after the question counts
	if code != 0 || !strings.Contains(out, `"snippets": []`) || !strings.Contains(out, "Not indexed yet") ||
		!strings.Contains(out, `"coverage": "not_indexed"`) {
		t.Errorf("ask --json before index: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	if code, _, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	code, out, errOut = ragbot(t, "ask", "--config", cfg, "--explain", "how do we rotate the kafka TLS certificates?")
	if code != 0 || !strings.HasPrefix(out, "No coverage") || !strings.Contains(out, "why refused: exact name match false") ||
		!strings.Contains(out, "similarity") || !strings.Contains(out, "(answer ") || !strings.Contains(out, "floor ") {
		t.Errorf("ask --explain of an unrelated question: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestAskNoWeaviateBinary: with no URL, nothing on the port and
// weaviate.binary missing, ask points at scripts/install-weaviate.sh.
func TestAskNoWeaviateBinary(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := "weaviate:\n  port: 1\n  binary: /nonexistent/weaviate-server\n  data_dir: " + t.TempDir() +
		"\nsources:\n  - name: httpx\n    kind: git\n    path: " + t.TempDir() + "\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := ragbot(t, "ask", "--config", cfg, "where is the retry?")
	if code != 1 || !strings.Contains(errOut, "install it with: bash scripts/install-weaviate.sh") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and the install script", code, errOut)
	}
}
