package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/ragbot/ragbot/retrieval"
)

// pagesPipelineVersion changes whenever IndexPages changes what it stores
// (fields, search_text) in a way that must rewrite every page; it is part of
// SourceState.Settings. Chunkers of a PageSource say their own version
// through PageSet.Settings.
const pagesPipelineVersion = "1"

// A PageRef is one page of a PageSource as listed, without its body.
type PageRef struct {
	ID      string // the source's page id ("98391"; the file path for HTML exports); unique within the source
	Title   string // page title, for messages and logs
	Path    string // Chunk.Path of the page's sections: stable, readable and unique within the source
	Version string // changes whenever the page's content changes ("7"; a content hash for exports)
}

// String names the page in messages: `page 98391 "Deploy runbook"`.
func (r PageRef) String() string { return fmt.Sprintf("page %s %q", r.ID, r.Title) }

// A Page is one fetched page: its ref as fetched (the title or version may
// have moved on since the listing) and its sections, as chunks with Kind,
// Path, Symbol, SymbolKind, Language, Signature, Content, StartLine,
// EndLine, Ordinal, URL, Author, Version and ModifiedAt set. IndexPages fills
// the rest (Source, ACL, ContentHash, SearchText, IndexedAt). A page must
// have at least one section, so that its version is remembered.
type Page struct {
	PageRef
	Sections []retrieval.Chunk
}

// A PageSource is a set of versioned pages: the Confluence spaces of a
// source, or a folder of Confluence HTML exports. ingest declares it; the
// confluence package implements it.
type PageSource interface {
	// ListPages returns every page in scope, without bodies: the cheap pass
	// whose versions decide what FetchPages is asked for.
	ListPages(ctx context.Context) ([]PageRef, error)
	// FetchPages fetches the pages refs name and calls fn once for each, in
	// any order, never concurrently. A page that no longer exists is left
	// out, which is not an error. An error from fn stops the fetch and is
	// returned.
	FetchPages(ctx context.Context, refs []PageRef, fn func(Page) error) error
}

// PageSet is a page source to index.
type PageSet struct {
	ID    string     // chunk source id, "confluence:<name>" or "docs:<name>"
	Pages PageSource // where the pages come from
	// Settings fingerprints what else shapes the chunks (base URL, flavour,
	// splitter version): when it changes, every page is fetched again.
	Settings string
	ACL      []string // groups allowed to see the chunks; empty means everyone
}

// PageStats summarise one IndexPages run.
type PageStats struct {
	Source   string        // source id
	Pages    int           // pages in scope after the run
	Fetched  int           // pages fetched and split again (new, changed, or all after a settings change)
	Removed  int           // pages gone from scope (deleted, archived, moved away) whose chunks were deleted
	Chunks   int           // chunks of the source after the run
	Embedded int           // chunks embedded and written
	Reused   int           // chunks of changed pages rewritten with their stored vector (same content)
	Deleted  int           // stored chunks deleted (sections or pages gone)
	Redacted RedactCounts  // secrets replaced by a marker in the fetched pages (Indexer.Redact), by rule
	Duration time.Duration // wall time of the run
}

// String is the one-line summary `ragbot index` prints; it says
// ", N secrets redacted" when the run redacted any (RedactedNote).
func (s PageStats) String() string {
	red := RedactedNote(s.Redacted.Total())
	return fmt.Sprintf("%d pages (%d fetched, %d removed), %d chunks (%d embedded, %d reused, %d deleted)%s, %.1fs",
		s.Pages, s.Fetched, s.Removed, s.Chunks, s.Embedded, s.Reused, s.Deleted, red, s.Duration.Round(100*time.Millisecond).Seconds())
}

// storedPage is what the index holds for one page path.
type storedPage struct {
	hashes   map[string]string // object id -> content hash
	versions map[string]bool
}

// current reports whether every chunk of the page was written at version.
func (p *storedPage) current(version string) bool {
	return len(p.versions) == 1 && p.versions[version]
}

// IndexPages brings the index of a page source up to date. It takes the
// source's lock (Indexer.LockDir), so that runs of one source never overlap,
// even across processes; lists the pages; fetches only those whose version
// differs from the version their stored chunks carry (all of them with
// full, or after a settings change); writes their sections, embedding only
// changed text (an unchanged section keeps its stored vector); deletes the
// sections that vanished and the chunks of pages that left the scope; and
// records the SourceState.
//
// Page versions are remembered in the chunks themselves (Chunk.Version,
// read back with Store.ListPageChunks), so they are exactly as durable as
// what is indexed. A failed run leaves the old chunks of unfinished pages in
// place and records its error in SourceState.LastError; pages already written
// keep their new version, so the next run resumes where this one stopped.
func (ix *Indexer) IndexPages(ctx context.Context, src PageSet, full bool) (PageStats, error) {
	st, err := ix.indexPages(ctx, src, full)
	ix.report(RunReport{Source: src.ID, Pages: true, Embedded: st.Embedded, Deleted: st.Deleted, Err: err})
	return st, err
}

func (ix *Indexer) indexPages(ctx context.Context, src PageSet, full bool) (PageStats, error) {
	start := time.Now()
	st := PageStats{Source: src.ID}
	log := ix.log().With("source", src.ID)
	unlock, err := lockSource(ctx, ix.LockDir, src.ID, ix.after) // no overlap with another process's run either
	if err != nil {
		return st, fmt.Errorf("ingest: %s: %w", src.ID, err)
	}
	defer unlock()
	settings := ix.PageSettings(src)
	prev, ok, err := ix.Store.State(ctx, src.ID, "")
	if err != nil {
		return st, err
	}
	err = ix.syncPages(ctx, log, src, full || (ok && prev.Settings != settings), &st)
	st.Duration = time.Since(start)
	return st, ix.finishPages(ctx, log, &st, settings, err)
}

func pageSettings(src PageSet, embedder string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("pages v%s|%s|%s|%q", pagesPipelineVersion, embedder, src.Settings, src.ACL)))
	return hex.EncodeToString(sum[:8])
}

// syncPages is IndexPages without the bookkeeping.
func (ix *Indexer) syncPages(ctx context.Context, log *slog.Logger, src PageSet, rewrite bool, st *PageStats) error {
	refs, err := src.Pages.ListPages(ctx)
	if err != nil {
		return err
	}
	refs = uniquePaths(log, refs)
	chunks, err := ix.Store.ListPageChunks(ctx, src.ID)
	if err != nil {
		return err
	}
	stored := map[string]*storedPage{}
	for _, c := range chunks {
		p := stored[c.Path]
		if p == nil {
			p = &storedPage{hashes: map[string]string{}, versions: map[string]bool{}}
			stored[c.Path] = p
		}
		p.hashes[c.ID] = c.ContentHash
		p.versions[c.Version] = true
	}
	var todo []PageRef
	unchanged := map[string]bool{} // paths listed at their stored version, not fetched
	for _, r := range refs {
		if p := stored[r.Path]; rewrite || p == nil || !p.current(r.Version) {
			todo = append(todo, r)
		} else {
			unchanged[r.Path] = true
		}
	}
	log.Debug("pages listed", "pages", len(refs), "to_fetch", len(todo), "stored_pages", len(stored))
	w := &pageWriter{ix: ix, src: src, stored: stored, st: st, indexedAt: ix.now().UTC(), written: map[string]int{},
		log: log, total: len(todo), reported: time.Now()}
	if err := src.Pages.FetchPages(ctx, todo, func(p Page) error { return w.add(ctx, p) }); err != nil {
		return err
	}
	if err := w.flush(ctx); err != nil {
		return err
	}
	// A stored page not written now is kept when it was listed unchanged;
	// otherwise it left the scope, or was gone (or renamed) by the time it
	// was fetched: its chunks go.
	var gone []string
	for path, p := range stored {
		if _, ok := w.written[path]; ok {
			continue
		}
		if unchanged[path] {
			st.Pages++
			st.Chunks += len(p.hashes)
			continue
		}
		for id := range p.hashes {
			gone = append(gone, id)
		}
		st.Removed++
		log.Debug("page gone", "path", path)
	}
	sort.Strings(gone)
	if err := ix.Store.DeleteIDs(ctx, gone); err != nil {
		return err
	}
	st.Deleted += len(gone)
	for _, n := range w.written {
		st.Pages++
		st.Chunks += n
	}
	return nil
}

// uniquePaths drops a second page with the same path (Confluence titles are
// unique within a space, so this means a source bug), with a warning.
func uniquePaths(log *slog.Logger, refs []PageRef) []PageRef {
	seen := make(map[string]PageRef, len(refs))
	out := refs[:0:0]
	for _, r := range refs {
		if first, dup := seen[r.Path]; dup {
			log.Warn("two pages with one path, the second is not indexed", "path", r.Path, "page_id", r.ID, "first_page_id", first.ID)
			continue
		}
		seen[r.Path] = r
		out = append(out, r)
	}
	return out
}

// finishPages records the run in SourceState, like finish does for git and
// markdown runs: on success the time, counts and settings; on failure only
// the error, so the last successful time stays what staleness is judged by.
func (ix *Indexer) finishPages(ctx context.Context, log *slog.Logger, st *PageStats, settings string, runErr error) error {
	// The pages hold these secrets whether or not the run stored them.
	logRedacted(log, st.Redacted)
	if runErr != nil && ctx.Err() != nil { // interrupted: record with a fresh context
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		ctx = c
	}
	prev, _, err := ix.Store.State(ctx, st.Source, "")
	if err != nil {
		if runErr == nil {
			return err
		}
		log.Warn("could not record failed run", "err", err)
		return fmt.Errorf("ingest: %s: %w", st.Source, runErr)
	}
	next := prev
	next.Source, next.Branch = st.Source, ""
	if runErr != nil {
		next.LastError = runErr.Error()
		if err := ix.Store.PutState(ctx, next); err != nil {
			log.Warn("could not record failed run", "err", err)
		}
		return fmt.Errorf("ingest: %s: %w", st.Source, runErr)
	}
	next.Embedder, next.Settings, next.IndexedAt, next.LastError = ix.Embedder.Name(), settings, ix.now(), ""
	next.Files, next.Chunks = st.Pages, st.Chunks
	if err := ix.Store.PutState(ctx, next); err != nil {
		return fmt.Errorf("ingest: %s: %w", st.Source, err)
	}
	var vr *vocabRun // pages changed: counted from the index
	if st.Fetched == 0 && st.Deleted == 0 {
		vr = &vocabRun{}
	}
	ix.putVocabulary(ctx, log, vr, prev, next)
	log.Info("page sync done", "pages", st.Pages, "fetched", st.Fetched, "removed", st.Removed, "chunks", st.Chunks,
		"embedded", st.Embedded, "redacted", st.Redacted.Total(), "reused", st.Reused, "deleted", st.Deleted, "seconds", st.Duration.Seconds())
	return nil
}
