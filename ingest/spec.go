package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ragbot/ragbot/ingest/openapi"
	"github.com/ragbot/ragbot/retrieval"
)

// SpecSource is an API description file (OpenAPI 3.x or Swagger 2.0, JSON
// or YAML) indexed as one chunk per operation.
type SpecSource struct {
	ID   string   // chunk source id, "openapi:<name>"
	File string   // the spec file
	ACL  []string // groups allowed to see the chunks; empty means everyone
}

// IndexSpec indexes one API description. The source is up to date when the
// file's sha256 and the settings match the last successful run; otherwise
// every operation is chunked again and only changed operations are embedded.
func (ix *Indexer) IndexSpec(ctx context.Context, src SpecSource, full bool) (Stats, error) {
	start := time.Now()
	st := Stats{Source: src.ID, Skipped: map[string]int{}, Fallback: map[string]int{}}
	log := ix.log().With("source", src.ID)
	data, err := os.ReadFile(src.File)
	if err != nil {
		return st, fmt.Errorf("ingest: %s: %w", src.ID, err)
	}
	settings := ix.SpecSettings(src, data)
	prev, ok, err := ix.Store.State(ctx, src.ID, "")
	if err != nil {
		return st, err
	}
	if !full && ok && prev.Settings == settings && prev.LastError == "" {
		ix.ensureVocabulary(ctx, log, prev)
		st.UpToDate, st.Files, st.Chunks, st.Duration = true, prev.Files, prev.Chunks, time.Since(start)
		return st, nil
	}
	vr := &vocabRun{full: true, acl: src.ACL}
	runErr := func() error {
		spec, err := openapi.Load(src.File, data)
		if err != nil {
			return err
		}
		stored, err := ix.Store.ListStored(ctx, src.ID, "")
		if err != nil {
			return err
		}
		fi, err := os.Stat(src.File)
		if err != nil {
			return err
		}
		for _, u := range spec.Unresolved() {
			if u.Symbol == "" {
				log.Warn("unresolved $ref outside the operations", "file", src.File, "ref", u.Ref)
				continue
			}
			log.Warn("unresolved $ref, operation indexed without it",
				"file", src.File, "symbol", u.Symbol, "where", u.Where, "ref", u.Ref)
		}
		chunks := spec.Chunks(filepath.Base(src.File))
		now := ix.now().UTC()
		for i := range chunks {
			c := &chunks[i]
			found := ix.Redact.Chunk(c) // examples and descriptions may hold real keys
			logRedactions(log, found)
			st.Redacted.add(found)
			c.Source, c.ACL, c.IndexedAt, c.ModifiedAt = src.ID, src.ACL, now, fi.ModTime().UTC()
			c.ContentHash = retrieval.HashContent(c.Content)
			c.SearchText = retrieval.SearchText(*c)
		}
		st.Files = 1
		prog := ix.newProgress(src.ID, 1)
		defer prog.done()
		prog.add(1, len(chunks), false)
		var out leftOut
		if err := ix.write(ctx, log, &st, vr, chunks, stored, ok && prev.Settings != settings, prog, &out); err != nil {
			return err
		}
		st.Pending, st.Deferred = out.pending, ix.DeferSemantic
		if out.err() != nil {
			vr.leftOut()
		}
		return out.err()
	}()
	st.Duration = time.Since(start)
	return st, ix.finish(ctx, log, &st, vr, settings, runErr)
}
