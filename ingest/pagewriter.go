package ingest

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/ragbot/ragbot/retrieval"
)

// pageFlushChunks is how many chunks of fetched pages are held before they
// are embedded and written together: one embedder call and one batch upsert.
const pageFlushChunks = 256

// pageWriter writes the sections of fetched pages in batches. A page's stale
// sections are deleted only after its new ones are stored, so a failure in
// between leaves old text, never a hole.
type pageWriter struct {
	ix        *Indexer
	src       PageSet
	stored    map[string]*storedPage // by page path
	st        *PageStats
	indexedAt time.Time
	written   map[string]int // page path -> chunks written

	embed, reuse []retrieval.Chunk
	stale        []string // ids of vanished sections of the pending pages

	log      *slog.Logger
	total    int       // pages to fetch
	reported time.Time // last progress line
}

// progressEvery is how often a long sync logs how far it got.
const progressEvery = 10 * time.Second

// add prepares one fetched page and flushes when enough chunks are pending.
func (w *pageWriter) add(ctx context.Context, p Page) error {
	if _, dup := w.written[p.Path]; dup {
		return fmt.Errorf("%s: fetched twice (path %q)", p.PageRef, p.Path)
	}
	old := w.stored[p.Path]
	seen := make(map[string]bool, len(p.Sections))
	for _, c := range p.Sections {
		c.Source, c.Path, c.ACL, c.IndexedAt = w.src.ID, p.Path, w.src.ACL, w.indexedAt
		found := w.ix.Redact.Chunk(&c)
		logRedactions(w.log, found)
		w.st.Redacted.add(found)
		c.Version = cmp.Or(c.Version, p.Version)
		c.ContentHash = retrieval.HashContent(c.Content)
		c.SearchText = retrieval.SearchText(c)
		if err := c.Validate(); err != nil {
			return fmt.Errorf("%s: %w", p.PageRef, err)
		}
		id := c.ID()
		if seen[id] {
			return fmt.Errorf("%s: two sections with id %s (symbol %q, ordinal %d)", p.PageRef, id, c.Symbol, c.Ordinal)
		}
		seen[id] = true
		if old != nil && old.hashes[id] == c.ContentHash {
			w.reuse = append(w.reuse, c)
		} else {
			w.embed = append(w.embed, c)
		}
	}
	if old != nil {
		for id := range old.hashes {
			if !seen[id] {
				w.stale = append(w.stale, id)
			}
		}
	}
	w.written[p.Path] = len(p.Sections)
	w.st.Fetched++
	if time.Since(w.reported) >= progressEvery {
		w.reported = time.Now()
		w.log.Info("page sync progress", "fetched", w.st.Fetched, "to_fetch", w.total)
	}
	if len(w.embed)+len(w.reuse) >= pageFlushChunks {
		return w.flush(ctx)
	}
	return nil
}

// flush writes the pending chunks: reused ones with their stored vectors,
// the rest embedded now; then deletes the pending pages' stale sections.
func (w *pageWriter) flush(ctx context.Context) error {
	ix := w.ix
	if len(w.reuse) > 0 {
		ids := make([]string, len(w.reuse))
		for i, c := range w.reuse {
			ids[i] = c.ID()
		}
		vecs, err := ix.Store.Vectors(ctx, ids)
		if err != nil {
			return err
		}
		var cs []retrieval.Chunk
		var vs [][]float32
		for _, c := range w.reuse {
			if v := vecs[c.ID()]; len(v) == ix.Embedder.Dim() {
				cs, vs = append(cs, c), append(vs, v)
			} else {
				w.embed = append(w.embed, c)
			}
		}
		if err := ix.Store.Upsert(ctx, cs, vs); err != nil {
			return err
		}
		w.st.Reused += len(cs)
	}
	if len(w.embed) > 0 {
		texts := make([]string, len(w.embed))
		for i, c := range w.embed {
			texts[i], _ = ix.embedText(c)
		}
		vecs, err := ix.Embedder.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embed: %w", err)
		}
		if err := ix.Store.Upsert(ctx, w.embed, vecs); err != nil {
			return err
		}
		w.st.Embedded += len(w.embed)
	}
	sort.Strings(w.stale)
	if err := ix.Store.DeleteIDs(ctx, w.stale); err != nil {
		return err
	}
	w.st.Deleted += len(w.stale)
	w.embed, w.reuse, w.stale = nil, nil, nil
	return nil
}
