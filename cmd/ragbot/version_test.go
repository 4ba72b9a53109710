package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

func TestVersion(t *testing.T) {
	cfg := writeConfig(t, t.TempDir())
	code, out, errOut := ragbot(t, "version", "--config", cfg)
	if code != 0 {
		t.Fatalf("version: exit %d\n%s", code, errOut)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^ragbot \S`),
		regexp.MustCompile(`(?m)^go ` + regexp.QuoteMeta(runtime.Version()) + `$`),
		regexp.MustCompile(`(?m)^embedder ` + regexp.QuoteMeta(embed.NewOffline().Name()) + `$`),
		regexp.MustCompile(`(?m)^weaviate \d+\.\d+\.\d+ \(http://127\.0\.0\.1:\d+\)$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("version output lacks %s:\n%s", want, out)
		}
	}
}

func TestVersionFlagWithoutConfig(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.yaml")
	code, out, errOut := ragbot(t, "--version", "--config", missing)
	if code != 0 {
		t.Fatalf("--version: exit %d\n%s", code, errOut)
	}
	if !strings.HasPrefix(out, "ragbot ") || !strings.Contains(out, "\ngo "+runtime.Version()+"\n") {
		t.Errorf("--version output:\n%s", out)
	}
	if strings.Contains(out, "weaviate") || strings.Contains(out, "embedder") {
		t.Errorf("without a config, version reports no server or embedder:\n%s", out)
	}
}

func TestVersionUnreachableWeaviate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ragbot.yaml")
	// Port 1 (tcpmux) is closed on any test machine; nothing is started.
	cfg := "weaviate:\n  url: http://127.0.0.1:1\nembedder:\n  kind: openai\n  model: text-embedding-3-small\n  base_url: http://127.0.0.1:1/v1\n  dimensions: 8\n" +
		"sources:\n  - name: httpx\n    kind: git\n    path: " + t.TempDir() + "\n"
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ragbot(t, "version", "--config", path)
	if code != 0 {
		t.Fatalf("version: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(out, "embedder openai:text-embedding-3-small\n") {
		t.Errorf("embedder line missing:\n%s", out)
	}
	if !strings.Contains(out, "weaviate not reachable (http://127.0.0.1:1)") {
		t.Errorf("weaviate line missing:\n%s", out)
	}
}

// TestVersionFailover: with weaviate.urls listing a closed port first and
// the test Weaviate second, version reports the second node's version, as
// the store would use it; with every node closed, it names them all.
func TestVersionFailover(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ragbot.yaml")
	write := func(urls string) {
		t.Helper()
		cfg := "weaviate:\n  urls: [" + urls + "]\nsources:\n  - name: httpx\n    kind: git\n    path: " + t.TempDir() + "\n"
		if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Ports 1 and 2 are closed on any test machine; nothing is started.
	live := weaviatetest.URL(t)
	write("http://127.0.0.1:1, " + live)
	code, out, errOut := ragbot(t, "version", "--config", path)
	want := regexp.MustCompile(`(?m)^weaviate \d+\.\d+\.\d+ \(` + regexp.QuoteMeta(live) + `\)$`)
	if code != 0 || !want.MatchString(out) {
		t.Errorf("version with a closed first node: exit %d, want a line matching %s:\n%s%s", code, want, out, errOut)
	}
	write("http://127.0.0.1:1, http://127.0.0.1:2")
	code, out, errOut = ragbot(t, "version", "--config", path)
	if want := "weaviate not reachable (http://127.0.0.1:1, http://127.0.0.1:2)\n"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("version with every node closed: exit %d, want %q in:\n%s%s", code, want, out, errOut)
	}
}

// TestBuildScriptStampsCommit builds ragbot with scripts/build.sh under
// GOFLAGS=-buildvcs=false, with which the go command records no commit,
// and checks that `ragbot version` names the checked-out one. Skipped
// outside a git work tree (but not on CI).
func TestBuildScriptStampsCommit(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git rev-parse HEAD: %v", err)
		}
		t.Skipf("not in a git work tree: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "ragbot")
	build := exec.Command("bash", "../../scripts/build.sh", bin)
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/build.sh: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--config", filepath.Join(t.TempDir(), "none.yaml")).Output()
	if err != nil {
		t.Fatalf("ragbot version: %v", err)
	}
	want := regexp.MustCompile(`^ragbot \S+ \(` + string(head[:12]) + `(, modified)?\)\n`)
	if !want.Match(out) {
		t.Errorf("version of a -buildvcs=false build by scripts/build.sh:\n%s\nwant a first line matching %s", out, want)
	}
}
