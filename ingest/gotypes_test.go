package ingest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/ingest/gocalls/gocallstest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// callerFiles are the files of gocalls/testdata/callers.txtar: a Go
// module where Do and Close are defined on two types and an interface,
// each use ending in a hand-written "// want NAME..." comment.
func callerFiles(t *testing.T) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no go command in PATH: type resolution cannot be tested")
		}
		t.Skip("no go command in PATH")
	}
	return gocallstest.Files(t)
}

// lineOf is "path:line" of the first line of files[p] that contains s.
func lineOf(t *testing.T, files map[string]string, p, s string) string {
	t.Helper()
	for i, l := range strings.Split(files[p], "\n") {
		if strings.Contains(l, s) {
			return fmt.Sprintf("%s:%d", p, i+1)
		}
	}
	t.Fatalf("%s has no line with %q", p, s)
	return ""
}

// TestUsageTypeResolved indexes the callers module in a real Weaviate and
// checks that a qualified usage question lists exactly the lines whose
// callee go/types resolved to that function (not every ".Do("), in each
// way it can be typed; that an incremental commit changing a field's type
// in one file moves the callers in another, unchanged one; and that once
// a package no longer type-checks, its files are matched by name and the
// answer says why.
func TestUsageTypeResolved(t *testing.T) {
	ctx := context.Background()
	files := callerFiles(t)
	repo := newRepo(t)
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:svc", Dir: repo.dir, LinkTemplate: linkTemplate}
	asker := usageAsker(store, emb)
	index := func(run int, want string) ingest.Stats {
		t.Helper()
		st, err := newIndexer(t, store, emb, t0.Add(time.Duration(100+run)*time.Hour)).IndexGit(ctx, src, false)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode != want || !strings.Contains(st.Summary("svc"), ", types ") {
			t.Fatalf("index run %d: mode %q, want %q; summary %q, want the types cost", run, st.Mode, want, st.Summary("svc"))
		}
		return st
	}
	ask := func(q string) (*retrieval.Usage, []string) {
		t.Helper()
		ans, _, _ := askUsage(t, asker, q)
		var sites []string
		for _, s := range ans.Snippets[ans.Usage.Definitions:] {
			sites = append(sites, fmt.Sprintf("%s:%d", s.Path, s.StartLine))
		}
		slices.Sort(sites)
		return ans.Usage, sites
	}
	check := func(q string, want []string) *retrieval.Usage {
		t.Helper()
		u, got := ask(q)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: sites (-want +got):\n%s", q, diff)
		}
		return u
	}

	repo.write(t, files)
	repo.commit(t, "add the module")
	index(1, ingest.ModeFull)
	policyDo := gocallstest.Wants(files)["retry.Policy.Do"]
	if len(policyDo) != 4 {
		t.Fatalf("the fixture marks %d calls of Policy.Do, want 4: %v", len(policyDo), policyDo)
	}
	for _, q := range []string{"who calls Policy.Do?", "who calls (*Policy).Do", "who calls policy.do", "callers of retry.Policy.Do"} {
		u := check(q, policyDo)
		if !u.Resolved || len(u.ByName) > 0 || !strings.Contains(u.Title(), "type-resolved") {
			t.Errorf("%q: Resolved %v, ByName %v, title %q; want type-resolved only", q, u.Resolved, u.ByName, u.Title())
		}
	}
	// Asked as typed -> the full name in the want comments. Once.Do is
	// retry's (the one indexed), not sync's; sync.Once.Do has no indexed
	// definition and is answered by its calls alone.
	for q, name := range map[string]string{"Conn.Do": "retry.Conn.Do", "Conn.Close": "retry.Conn.Close", "Policy.Close": "retry.Policy.Close",
		"retry.Do": "retry.Do", "Doer.Do": "retry.Doer.Do", "app.Do": "app.Do", "Once.Do": "retry.Once.Do", "sync.Once.Do": "sync.Once.Do",
		"retry.Policy.Do": "retry.Policy.Do"} {
		if want := gocallstest.Wants(files)[name]; len(want) == 0 {
			t.Errorf("the fixture marks no call of %s", name)
		} else {
			check("who calls "+q+"?", want)
		}
	}

	// The field conn becomes a *Policy in client.go: app.go is unchanged,
	// but its c.conn.Do and c.conn.Close now call Policy's methods.
	files["app/client.go"] = strings.Replace(files["app/client.go"], "conn *retry.Conn", "conn *retry.Policy", 1)
	repo.write(t, map[string]string{"app/client.go": files["app/client.go"]})
	repo.commit(t, "conn is a policy")
	index(2, ingest.ModeIncremental)
	connDo := lineOf(t, files, "app/app.go", "c.conn.Do(nil)")
	connClose := lineOf(t, files, "app/app.go", "c.conn.Close")
	check("who calls Policy.Do?", slices.Sorted(slices.Values(append(slices.Clone(policyDo), connDo))))
	check("who calls Policy.Close?", slices.Sorted(slices.Values(append(gocallstest.Wants(files)["retry.Policy.Close"], connClose))))
	if u := check("who calls Conn.Do?", nil); u.Sites != 0 {
		t.Errorf("who calls Conn.Do: %d sites, want none", u.Sites)
	}

	// Package app stops type-checking: its files fall back to matching
	// ".Do(" by name, retry's stay resolved, and the answer says which.
	files["app/app.go"] = strings.Replace(files["app/app.go"], "var once sync.Once", "var once sync.Once\n\nvar broken = undefinedThing", 1)
	repo.write(t, map[string]string{"app/app.go": files["app/app.go"]})
	repo.commit(t, "break app")
	index(3, ingest.ModeIncremental)
	u, got := ask("who calls Policy.Do?")
	if !u.Resolved || len(u.ByName) != 1 || !strings.Contains(u.ByName[0], "undefined: undefinedThing") ||
		!strings.Contains(u.Title(), "matched by name: type information unavailable for repo:svc") {
		t.Errorf("after the break: Resolved %v, ByName %v, title %q; want resolved retry, app matched by name and why", u.Resolved, u.ByName, u.Title())
	}
	// By name, once.Do (sync.Once) counts too; the method expression on
	// the last line of app.go has no ".Do(" and is lost; app_test.go,
	// unchanged, was rewritten without calls and is matched by name.
	for _, want := range []string{lineOf(t, files, "app/app.go", "once.Do("), lineOf(t, files, "app/app_test.go", "c.Do("), lineOf(t, files, "retry/retry.go", "return p.Do(f)")} {
		if !slices.Contains(got, want) {
			t.Errorf("after the break: sites %v, want %s among them", got, want)
		}
	}
}

// TestGoTypesOffForOneSource: a source with GitSource.NoGoTypes (config
// go_types: false) is indexed without type resolution, its usage
// questions answered by name; turning resolution on makes the next run of
// the unchanged commit a full one, which resolves the calls.
func TestGoTypesOffForOneSource(t *testing.T) {
	ctx := context.Background()
	files := callerFiles(t)
	repo := newRepo(t)
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	asker := usageAsker(store, emb)
	repo.write(t, files)
	repo.commit(t, "add the module")
	for run, off := range []bool{true, false} {
		src := ingest.GitSource{ID: "repo:svc", Dir: repo.dir, NoGoTypes: off}
		st, err := newIndexer(t, store, emb, t0.Add(time.Duration(100+run)*time.Hour)).IndexGit(ctx, src, false)
		if err != nil {
			t.Fatal(err)
		}
		ans, _, _ := askUsage(t, asker, "who calls Policy.Do?")
		if st.Mode != ingest.ModeFull || (st.Types == "") != off || ans.Usage.Resolved == off {
			t.Errorf("NoGoTypes %v: mode %q, types %q, usage resolved %v; want a full run, types and resolution only when on",
				off, st.Mode, st.Types, ans.Usage.Resolved)
		}
	}
}
