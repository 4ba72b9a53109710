package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// checkVocabulary checks that the stored vocabulary of st's source and
// branch is current for st and counts the chunks as stored.
func checkVocabulary(t *testing.T, store *weaviate.Store, st retrieval.SourceState) {
	t.Helper()
	ctx := context.Background()
	v, ok, err := store.ReadVocabulary(ctx, st.Source, st.Branch)
	if err != nil || !ok {
		t.Errorf("vocabulary of %s@%s: ok=%v err=%v", st.Source, st.Branch, ok, err)
		return
	}
	if !v.Current(st) {
		t.Errorf("vocabulary stamped %s %s, state at %s %s", v.CommitSHA, v.IndexedAt, st.CommitSHA, st.IndexedAt)
	}
	scan, _, err := store.ScanVocabulary(ctx, st.Source, st.Branch)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(scan.Terms, v.Terms, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("vocabulary vs the stored chunks' terms (-stored chunks +vocabulary):\n%s", diff)
	}
	if v.Chunks != scan.Chunks {
		t.Errorf("vocabulary counts %d chunks, %d are stored", v.Chunks, scan.Chunks)
	}
}

// TestVocabularyFollowsPushes: a push that adds a word makes it present in
// the source's vocabulary, one that removes its last use makes it absent,
// and a run that finds an index made before vocabularies up to date
// counts one.
func TestVocabularyFollowsPushes(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:shop", Dir: repo.dir, LinkTemplate: linkTemplate}
	has := func(term string) bool {
		t.Helper()
		v, ok, err := store.ReadVocabulary(ctx, src.ID, "main")
		if err != nil || !ok {
			t.Fatalf("vocabulary: ok=%v err=%v", ok, err)
		}
		return retrieval.Vocabulary{v}.DF(term) > 0
	}
	steps := []struct {
		name  string
		files map[string]string // written, "" deletes
		mode  string
		want  map[string]bool
	}{
		{"first index", map[string]string{"shop/retry.go": "package shop\n\n// Retry retries a request.\nfunc Retry() {}\n"},
			ingest.ModeFull, map[string]bool{"retry": true, "rabbitmq": false}},
		{"a push adds a word", map[string]string{"shop/queue.go": "package shop\n\n// Publish sends the order to rabbitmq.\nfunc Publish() {}\n"},
			ingest.ModeIncremental, map[string]bool{"retry": true, "rabbitmq": true, "publish": true}},
		{"a push changes a file", map[string]string{"shop/queue.go": "package shop\n\n// Publish sends the order to kafka.\nfunc Publish() {}\n"},
			ingest.ModeIncremental, map[string]bool{"rabbitmq": false, "kafka": true, "publish": true}},
		{"a push deletes the file", map[string]string{"shop/queue.go": ""},
			ingest.ModeIncremental, map[string]bool{"kafka": false, "publish": false, "retry": true}},
	}
	for i, step := range steps {
		for p, body := range step.files {
			if body == "" {
				if err := os.Remove(filepath.Join(repo.dir, filepath.FromSlash(p))); err != nil {
					t.Fatal(err)
				}
				continue
			}
			repo.write(t, map[string]string{p: body})
		}
		repo.commit(t, step.name)
		st, err := newIndexer(t, store, emb, t0.Add(time.Duration(i)*time.Hour)).IndexGit(ctx, src, false)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if st.Mode != step.mode {
			t.Errorf("%s: mode %s, want %s", step.name, st.Mode, step.mode)
		}
		for term, want := range step.want {
			if got := has(term); got != want {
				t.Errorf("%s: %q in the vocabulary = %v, want %v", step.name, term, got, want)
			}
		}
		state, _, err := store.State(ctx, src.ID, "main")
		if err != nil {
			t.Fatal(err)
		}
		checkVocabulary(t, store, state)
	}
	// An index made before vocabularies: the next run finds it up to date
	// and counts one.
	if err := store.DeleteVocabulary(ctx, src.ID, "main"); err != nil {
		t.Fatal(err)
	}
	st, err := newIndexer(t, store, emb, t0.Add(10*time.Hour)).IndexGit(ctx, src, false)
	if err != nil || !st.UpToDate {
		t.Fatalf("re-run: up to date %v, %v", st.UpToDate, err)
	}
	state, _, err := store.State(ctx, src.ID, "main")
	if err != nil {
		t.Fatal(err)
	}
	checkVocabulary(t, store, state)
}
