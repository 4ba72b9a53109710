package ingest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// memPages is a PageSource over pages in memory; list, when set, is called
// at the start of ListPages (to hold a run open).
type memPages struct {
	pages map[string]ingest.Page // by path
	list  func()
}

func (m *memPages) ListPages(context.Context) ([]ingest.PageRef, error) {
	if m.list != nil {
		m.list()
	}
	var refs []ingest.PageRef
	for _, p := range m.pages {
		refs = append(refs, p.PageRef)
	}
	return refs, nil
}

func (m *memPages) FetchPages(_ context.Context, refs []ingest.PageRef, fn func(ingest.Page) error) error {
	for _, r := range refs {
		if err := fn(m.pages[r.Path]); err != nil {
			return err
		}
	}
	return nil
}

func memPage(id, path, version string, sections ...string) ingest.Page {
	p := ingest.Page{PageRef: ingest.PageRef{ID: id, Title: path, Path: path, Version: version}}
	for i, s := range sections {
		p.Sections = append(p.Sections, retrieval.Chunk{Kind: retrieval.KindDoc, Path: path, Symbol: path + " > " + s,
			SymbolKind: "section", Content: "## " + s + "\n\n" + s + " text", StartLine: 1 + 4*i, EndLine: 3 + 4*i})
	}
	return p
}

// TestIndexPagesFullAndLock: a full run re-splits every page but embeds
// nothing whose text is unchanged; a second run of the same source waits
// for the lock of the first (LockDir) and gives up when its context ends.
func TestIndexPagesFullAndLock(t *testing.T) {
	ctx := context.Background()
	emb := &recordingEmbedder{Embedder: embed.NewOffline()}
	store := weaviatetest.NewStore(t, emb.Name())
	ix := newIndexer(t, store, emb, t0)
	ix.LockDir = t.TempDir()
	src := &memPages{pages: map[string]ingest.Page{
		"A/One": memPage("1", "A/One", "3", "Setup", "Run"),
		"A/Two": memPage("2", "A/Two", "1", "Notes"),
	}}
	set := ingest.PageSet{ID: "confluence:mem", Pages: src, Settings: "v1"}
	ignore := cmpopts.IgnoreFields(ingest.PageStats{}, "Duration")

	st, err := ix.IndexPages(ctx, set, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ingest.PageStats{Source: "confluence:mem", Pages: 2, Fetched: 2, Chunks: 3, Embedded: 3}, st, ignore); diff != "" {
		t.Errorf("first run (-want +got):\n%s", diff)
	}
	emb.take()
	st, err = ix.IndexPages(ctx, set, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ingest.PageStats{Source: "confluence:mem", Pages: 2, Fetched: 2, Chunks: 3, Reused: 3}, st, ignore); diff != "" {
		t.Errorf("full run (-want +got):\n%s", diff)
	}
	if got := emb.take(); len(got) != 0 {
		t.Errorf("full run embedded %v, want nothing", got)
	}
	state, _, err := store.State(ctx, set.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	checkVocabulary(t, store, state)

	// Run A holds the lock while it lists; run B gives up after 300 ms.
	listing, release := make(chan struct{}), make(chan struct{})
	src.list = func() { close(listing); <-release }
	errA := make(chan error, 1)
	go func() { _, err := ix.IndexPages(ctx, set, false); errA <- err }()
	<-listing
	src.list = nil
	bctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = ix.IndexPages(bctx, set, false)
	if err == nil || !strings.Contains(err.Error(), "another index run of this source is under way") {
		t.Errorf("second run while the first holds the lock: %v", err)
	}
	close(release)
	if err := <-errA; err != nil {
		t.Errorf("first run: %v", err)
	}
}
