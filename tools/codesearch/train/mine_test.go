package train

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const goSrc = `package store

// Store keeps chunks in memory.
type Store struct {
	m map[string]string
	n int
}

// Upsert writes the chunk under its id, replacing an older one.
// It never fails.
func (s *Store) Upsert(id, text string) {
	s.m[id] = text
	s.n++
}

func undocumented() int {
	x := 1
	return x
}
`

const pySrc = `import os


def read_config(path):
    """Load the YAML settings file and return a dict.

    More text here.
    """
    with open(path) as f:
        data = f.read()
    return parse(data)


class Client:
    """An HTTP client with retries."""

    def close(self):
        # no docstring
        self.pool.close()
        self.closed = True
        return None
`

const jsSrc = `/**
 * Removes trailing whitespace from every line of {@link text}.
 * @param {string} text
 * @returns {string}
 */
function stripLines(text) {
  const lines = text.split("\n");
  return lines.map((l) => l.trimEnd()).join("\n");
}
`

const tsSrc = `// Computes the backoff delay for the attempt, in milliseconds.
export function backoffDelay(attempt: number): number {
  const base = 100;
  return base * 2 ** attempt;
}
`

func TestMineFile(t *testing.T) {
	for _, tc := range []struct {
		path, src string
		want      map[string]string // symbol -> Doc
		notInCode string            // the doc must not be in Code
	}{
		{"store/store.go", goSrc, map[string]string{
			"Store":        "keeps chunks in memory",
			"Store.Upsert": "writes the chunk under its id, replacing an older one",
		}, "replacing an older"},
		{"pkg/config.py", pySrc, map[string]string{
			"read_config": "Load the YAML settings file and return a dict",
			"Client":      "An HTTP client with retries",
		}, "YAML settings"},
		{"lib/strip.js", jsSrc, map[string]string{
			"stripLines": "Removes trailing whitespace from every line of text",
		}, "trailing whitespace"},
		{"src/backoff.ts", tsSrc, map[string]string{
			"backoffDelay": "Computes the backoff delay for the attempt, in milliseconds",
		}, "in milliseconds"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			pairs := MineFile(tc.path, []byte(tc.src))
			got := map[string]string{}
			for _, p := range pairs {
				got[p.Symbol] = p.Doc
				if strings.Contains(p.Code, tc.notInCode) {
					t.Errorf("%s: code side still holds the doc comment:\n%s", p.Symbol, p.Code)
				}
				if !strings.HasPrefix(p.Code, p.Symbol+"\n"+tc.path+"\n") {
					t.Errorf("%s: code side does not start with symbol and path: %q", p.Symbol, p.Code)
				}
				if len(p.Queries) < 2 || p.Queries[0] != lowerFirstWord(p.Doc) {
					t.Errorf("%s: queries %q, want the doc first and rewrites", p.Symbol, p.Queries)
				}
			}
			for sym, doc := range tc.want {
				if got[sym] != doc {
					t.Errorf("%s: doc %q, want %q", sym, got[sym], doc)
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("mined %v, want only %v", got, tc.want)
			}
		})
	}
}

func lowerFirstWord(s string) string {
	w := strings.Fields(s)
	w[0] = lowerFirst(w[0])
	return strings.Join(w, " ")
}

func TestRewrite(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"returns the bar of x", []string{"returns the bar of x", "where does it return the bar of x",
			"how does it get the bar of x", "where is the code that returns the bar of x"}},
		{"Remove stale entries from the cache", []string{"remove stale entries from the cache",
			"where does it remove stale entries from the cache", "how does it delete stale entries from the cache",
			"where is the code that removes stale entries from the cache"}},
		{"is a pool of HTTP connections", []string{"is a pool of HTTP connections",
			"where is the pool of HTTP connections", "what is the pool of HTTP connections"}},
		{"base class for transports", []string{"base class for transports", "where is base class for transports"}},
		{"HTTP client with retries", []string{"HTTP client with retries", "where is HTTP client with retries"}},
		{"", nil},
	} {
		if got := Rewrite(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Rewrite(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestStripName(t *testing.T) {
	for _, tc := range []struct{ in, sym, want string }{
		{"Upsert writes the chunk", "Store.Upsert", "writes the chunk"},
		{"ParseDuration parses a duration string", "ParseDuration", "parses a duration string"},
		{"Store.Upsert() writes it", "Store.Upsert", "writes it"},
		{"read_config's job is loading", "read_config", "job is loading"},
	} {
		if got := stripName(tc.in, tc.sym); got != tc.want {
			t.Errorf("stripName(%q, %q) = %q, want %q", tc.in, tc.sym, got, tc.want)
		}
	}
}

func TestReserved(t *testing.T) {
	for _, name := range []string{"github.com/prometheus/alertmanager", "github.com/hashicorp/raft",
		"github.com/nats-io/nats.go", "go.etcd.io/bbolt", "python3-requests", "urllib3", "axios@1.7.9",
		"express", "ws@8.0.0", "commander", "@octokit/rest@20.0.0"} {
		if err := CheckRoot(name); !errors.Is(err, ErrReserved) {
			t.Errorf("CheckRoot(%q) = %v, want ErrReserved", name, err)
		}
	}
	for _, name := range []string{"github.com/google/uuid", "python3-jinja2", "lodash@4.17.21", "wsl", "expressive",
		"github.com/prometheus-community/x"} {
		if err := CheckRoot(name); err != nil {
			t.Errorf("CheckRoot(%q) = %v, want nil", name, err)
		}
	}
	// A reserved path is refused; the same file elsewhere is mined.
	if got := MineFile("urllib3/util.py", []byte(pySrc)); len(got) != 0 {
		t.Errorf("MineFile mined %d pairs from a reserved path", len(got))
	}
	if got := MineFile("util/util.py", []byte(pySrc)); len(got) != 2 {
		t.Errorf("MineFile mined %d pairs from an allowed path, want 2", len(got))
	}
	// Vendored copies inside an allowed package are refused file by file.
	dir := t.TempDir()
	for _, p := range []string{"pip/_vendor/urllib3/util.py", "pip/_vendor/requests/api.py", "pip/ok.py",
		"node_modules_copy/axios/lib/core.js"} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(pySrc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pairs, err := MineDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 || pairs[0].Path != "pip/ok.py" || pairs[1].Path != "pip/ok.py" {
		var paths []string
		for _, p := range pairs {
			paths = append(paths, p.Path)
		}
		t.Errorf("mined from %q, want only pip/ok.py", paths)
	}
}
