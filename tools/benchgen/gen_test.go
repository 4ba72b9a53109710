package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gitCommit makes dir a git repository with one commit, in a hermetic git
// environment (no global or system config).
func gitCommit(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "corpus"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

const poolGo = `package pool

// Pool keeps idle network connections for reuse by later requests.
type Pool struct {
	idle []int
}

// Get takes an idle connection or dials a new one.
func (p *Pool) Get() int {
	return 0
}

// Evict closes the oldest connections when too many are waiting.
func (p *Pool) Evict() {
}

func undocumented() {}
`

const poolTestGo = `package pool

// TestGet checks that the pool hands out a connection to every caller.
func TestGet() {}
`

const readme = `# pool

Intro text.

## Tuning the idle limit

How many connections to keep.

## License

MIT
`

func TestBuild(t *testing.T) {
	corpus := t.TempDir()
	r := Repo{Name: "pool", Group: "go", Registry: "gomod", Package: "example.com/pool", Version: "v1.0.0",
		Checksum: "h1:x", Licence: "MIT"}
	dir := r.Root(corpus)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"pool.go": poolGo, "pool_test.go": poolTestGo, "README.md": readme} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitCommit(t, dir)
	in := inputs{
		names:    []Name{{Written: "RabbitMQ"}, {Written: "Redis"}, {Written: "MIT License", Also: []string{"mit"}}},
		nearMiss: map[string][]string{"pool": {"where does the pool retry a request?"}},
	}
	qs, chunks, err := build(context.Background(), r, in, corpus)
	if err != nil {
		t.Fatal(err)
	}
	if chunks == 0 {
		t.Error("no chunks counted")
	}
	for _, q := range qs {
		if q.Corpus != "example.com/pool@v1.0.0" || !strings.HasPrefix(q.ID, "pool-") {
			t.Errorf("question %s: corpus %q", q.ID, q.Corpus)
		}
	}
	got := map[string][]string{} // kind -> "question => path:symbol:lines"
	for _, q := range qs {
		line := q.Question
		for _, e := range q.Expect {
			line += " => " + e.Path + ":" + e.Symbol + ":" + strconv.Itoa(e.StartLine) + "-" + strconv.Itoa(e.EndLine)
		}
		got[q.Kind] = append(got[q.Kind], line)
	}
	// Each documented symbol's question loses the symbol's names and keeps
	// its whole declaration as the answer; the undocumented function, the
	// test file and the License heading give nothing; the MIT licence and
	// the pool's own words are no absent names. (Templates are picked by a
	// hash of the location: TestTemplates checks them.)
	want := map[string][]string{
		"paraphrase": {
			"how does it keep idle network connections for reuse by later requests? => pool.go:Pool:3-6",
			"which code takes an idle connection or dials a new one? => pool.go:Pool.Get:8-11",
			"where do we close the oldest connections when too many are waiting? => pool.go:Pool.Evict:13-15",
		},
		"docs": {"is there documentation about tuning the idle limit? => README.md:pool > Tuning the idle limit:5-8"},
		"absent": {
			"which code calls rabbitmq?",
			"where is the RabbitMQ client configured?",
			"where are the redis credentials read?",
			"how do we export results to Redis?",
		},
		"near_miss": {"where does the pool retry a request?"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("questions by kind (-want +got):\n%s", diff)
	}
}
