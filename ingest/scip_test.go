package ingest_test

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/ingest/scipcalls"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// scipFiles is a repository with a Python package and a JavaScript one,
// each defining two classes with a method of the same name (close, clear)
// and calling it on receivers SCIP can type (an annotated parameter, a
// constructed object) and on one it cannot (an unannotated parameter).
var scipFiles = map[string]string{
	"shop/__init__.py": "",
	"shop/store.py": `class Store:
    def close(self):
        return "store"


class Conn:
    def close(self):
        return "conn"
`,
	"shop/app.py": `from shop.store import Conn, Store


def shutdown(store: Store, conn: Conn):
    store.close()
    conn.close()


def cleanup(thing):
    # thing.close() is called on anything
    thing.close()


def fresh():
    s = Store()
    s.close()
    Conn().close()
`,
	"lib/cache.js": `class Cache {
  clear() {
    return 'cache';
  }
}

class Pool {
  clear() {
    return 'pool';
  }
}

module.exports = { Cache, Pool };
`,
	"lib/app.js": `const { Cache, Pool } = require('./cache');

function reset() {
  const c = new Cache();
  c.clear();
  new Pool().clear();
}

function wipe(thing) {
  thing.clear();
}

module.exports = { reset, wipe };
`,
}

// requireSCIP skips the test when scripts/install-scip.sh has not run,
// and fails it instead under RAGBOT_REQUIRE_MODEL=1 (CI installs them).
func requireSCIP(t *testing.T) {
	t.Helper()
	if err := scipcalls.Installed(scipcalls.Dir()); err != nil {
		if os.Getenv("RAGBOT_REQUIRE_MODEL") == "1" {
			t.Fatalf("RAGBOT_REQUIRE_MODEL=1 and %v", err)
		}
		t.Skipf("%v (RAGBOT_REQUIRE_MODEL=1 makes this a failure)", err)
	}
}

// TestUsageSCIP indexes scipFiles in a real Weaviate with the real
// scip-python and scip-typescript, and checks that "who calls Type.method"
// lists the calls SCIP resolved to that method and, matched by name and
// said so, the call on the untyped receiver, but not the calls of the other
// class's method; then that incremental commits keep it so, in the file
// changed and in an unchanged one whose calls now resolve differently.
func TestUsageSCIP(t *testing.T) {
	requireSCIP(t)
	ctx := context.Background()
	repo := newRepo(t)
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	asker := usageAsker(store, emb)
	src := ingest.GitSource{ID: "repo:svc", Dir: repo.dir}
	index := func(run int, want string) {
		t.Helper()
		ix := newIndexer(t, store, emb, t0.Add(time.Duration(100+run)*time.Hour))
		ix.NoSCIP = false
		st, err := ix.IndexGit(ctx, src, false)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode != want || !strings.Contains(st.Types, "scip ") || strings.Contains(st.Types, "unavailable") {
			t.Fatalf("index run %d: mode %q, want %q; types %q, want the scip cost", run, st.Mode, want, st.Types)
		}
	}
	files := maps.Clone(scipFiles)
	repo.write(t, files)
	repo.commit(t, "add the packages")
	index(1, ingest.ModeFull)

	at := func(p, s string) string { return lineOf(t, files, p, s) }
	untypedPy := []string{"repo:svc shop/app.py (scip-python gave these calls no symbol: receiver of unknown type)"}
	untypedJS := []string{"repo:svc lib/app.js (scip-typescript gave these calls no symbol: receiver of unknown type)"}
	tests := []struct {
		q          string
		want       []string
		resolvedBy []string
		byName     []string
	}{
		{"who calls Store.close?", []string{at("shop/app.py", "store.close()"), at("shop/app.py", "    thing.close()"), at("shop/app.py", "s.close()")},
			[]string{scipcalls.Python}, untypedPy},
		{"who calls Conn.close?", []string{at("shop/app.py", "conn.close()"), at("shop/app.py", "    thing.close()"), at("shop/app.py", "Conn().close()")},
			[]string{scipcalls.Python}, untypedPy},
		{"who calls Cache.clear?", []string{at("lib/app.js", "c.clear()"), at("lib/app.js", "thing.clear()")},
			[]string{scipcalls.TypeScript}, untypedJS},
		{"who calls Pool.clear?", []string{at("lib/app.js", "new Pool().clear()"), at("lib/app.js", "thing.clear()")},
			[]string{scipcalls.TypeScript}, untypedJS},
	}
	check := func(step string) {
		t.Helper()
		for _, tt := range tests {
			u, got := usageSites(t, asker, tt.q)
			if diff := cmp.Diff(sorted(tt.want), got); diff != "" {
				t.Errorf("%s: %q: sites (-want +got):\n%s", step, tt.q, diff)
			}
			if !u.Resolved || !slices.Equal(u.ResolvedBy, tt.resolvedBy) || !slices.Equal(u.ByName, tt.byName) ||
				!strings.Contains(u.Title(), "except matched by name") {
				t.Errorf("%s: %q: resolved %v by %v, by name %q, title %q; want resolved by %v, by name %q",
					step, tt.q, u.Resolved, u.ResolvedBy, u.ByName, u.Title(), tt.resolvedBy, tt.byName)
			}
		}
	}
	check("full run")

	// The annotation moves the untyped call to Store.close; store.py,
	// unchanged, keeps its chunks.
	files["shop/app.py"] = strings.Replace(files["shop/app.py"], "def cleanup(thing):", "def cleanup(thing: Store):", 1)
	repo.write(t, map[string]string{"shop/app.py": files["shop/app.py"]})
	repo.commit(t, "type the receiver")
	index(2, ingest.ModeIncremental)
	u, got := usageSites(t, asker, "who calls Conn.close?")
	if want := sorted([]string{at("shop/app.py", "conn.close()"), at("shop/app.py", "Conn().close()")}); !slices.Equal(want, got) || len(u.ByName) != 0 {
		t.Errorf("after typing the receiver: who calls Conn.close: sites %v, by name %q; want %v, none by name", got, u.ByName, want)
	}

	// Conn loses its close: app.py is unchanged, but its conn.close() and
	// Conn().close() now have no symbol, so they are Store.close's by name
	// (the unchanged file's chunks are rewritten with the new calls).
	files["shop/store.py"] = strings.Replace(files["shop/store.py"], "    def close(self):\n        return \"conn\"", "    def shut(self):\n        return \"conn\"", 1)
	repo.write(t, map[string]string{"shop/store.py": files["shop/store.py"]})
	repo.commit(t, "conn shuts")
	index(3, ingest.ModeIncremental)
	u, got = usageSites(t, asker, "who calls Store.close?")
	want := sorted([]string{at("shop/app.py", "store.close()"), at("shop/app.py", "    thing.close()"), at("shop/app.py", "s.close()"),
		at("shop/app.py", "conn.close()"), at("shop/app.py", "Conn().close()")})
	if !slices.Equal(want, got) || !slices.Equal(u.ByName, untypedPy) {
		t.Errorf("after Conn.close is gone: who calls Store.close: sites %v, by name %q; want %v, by name %q", got, u.ByName, want, untypedPy)
	}
}

// TestSCIPFallback: with the indexers missing (an empty install folder),
// Python and JavaScript usage answers match names, as before, and say
// why; with scip: false (GitSource.NoSCIP) they match names without a
// word, as for any unresolved language.
func TestSCIPFallback(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	asker := usageAsker(store, emb)
	files := maps.Clone(scipFiles)
	repo.write(t, files)
	repo.commit(t, "add the packages")
	byName := sorted([]string{lineOf(t, files, "shop/app.py", "store.close()"), lineOf(t, files, "shop/app.py", "conn.close()"),
		lineOf(t, files, "shop/app.py", "    thing.close()"), lineOf(t, files, "shop/app.py", "s.close()"), lineOf(t, files, "shop/app.py", "Conn().close()")})
	for run, tt := range []struct {
		name   string
		noSCIP bool
		types  string // in Stats.Types
		byName string // in Usage.ByName
	}{
		{"indexers missing", false, "scip ", "scip-python not installed in "},
		{"scip false", true, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ix := newIndexer(t, store, emb, t0.Add(time.Duration(100+run)*time.Hour))
			ix.NoSCIP, ix.SCIPDir = false, t.TempDir()
			src := ingest.GitSource{ID: "repo:svc", Dir: repo.dir, NoSCIP: tt.noSCIP}
			st, err := ix.IndexGit(ctx, src, false)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode != ingest.ModeFull || !strings.Contains(st.Types, tt.types) || tt.types == "" && strings.Contains(st.Types, "scip") {
				t.Errorf("mode %q, types %q; want a full run, types with %q", st.Mode, st.Types, tt.types)
			}
			u, got := usageSites(t, asker, "who calls Store.close?")
			if diff := cmp.Diff(byName, got); diff != "" {
				t.Errorf("who calls Store.close: sites (-want +got):\n%s", diff)
			}
			note := strings.Join(u.ByName, "; ")
			if u.Resolved || tt.byName == "" && note != "" || !strings.Contains(note, tt.byName) ||
				tt.byName != "" && !strings.Contains(u.Title(), "matched by name") {
				t.Errorf("resolved %v, by name %q, title %q; want by name with %q", u.Resolved, note, u.Title(), tt.byName)
			}
		})
	}
}

// TestSCIPInstalledLater: a source indexed while the indexers were
// missing is read again in full by the first run after they are installed,
// though its commit did not change, and its callers are then resolved.
func TestSCIPInstalledLater(t *testing.T) {
	requireSCIP(t)
	ctx := context.Background()
	repo := newRepo(t)
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	asker := usageAsker(store, emb)
	repo.write(t, scipFiles)
	repo.commit(t, "add the packages")
	src := ingest.GitSource{ID: "repo:svc", Dir: repo.dir}
	for run, dir := range []string{t.TempDir(), scipcalls.Dir()} {
		ix := newIndexer(t, store, emb, t0.Add(time.Duration(100+run)*time.Hour))
		ix.NoSCIP, ix.SCIPDir = false, dir
		st, err := ix.IndexGit(ctx, src, false)
		if err != nil {
			t.Fatal(err)
		}
		u, _ := usageSites(t, asker, "who calls Store.close?")
		if installed := run == 1; st.UpToDate || st.Mode != ingest.ModeFull || u.Resolved != installed {
			t.Errorf("run %d (indexers installed: %v): up to date %v, mode %q, resolved %v; want a full run, resolved %v",
				run+1, installed, st.UpToDate, st.Mode, u.Resolved, installed)
		}
	}
}

// usageSites asks q and returns its usage and its sites as "path:line",
// sorted.
func usageSites(t *testing.T, asker *retrieval.Asker, q string) (*retrieval.Usage, []string) {
	t.Helper()
	ans, _, uses := askUsage(t, asker, q)
	var sites []string
	for _, u := range uses {
		p, _, _ := strings.Cut(u, " ")
		sites = append(sites, p)
	}
	return ans.Usage, sorted(sites)
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }
