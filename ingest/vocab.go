package ingest

import (
	"context"
	"log/slog"
	"sync"

	"github.com/ragbot/ragbot/retrieval"
)

// Every successful index run leaves its source's vocabulary
// (retrieval.SourceVocabulary: every term of the chunks' search text, with
// the number of chunks holding it) stored beside the SourceState, stamped
// with the state's commit and time, so that the absence check of answers
// reads it from memory (retrieval/absence.go):
//   - a full run counts the chunks it wrote;
//   - an incremental git run takes the stored vocabulary, counted for the
//     commit it starts from, out the search text of the changed files'
//     stored chunks and in that of their new chunks (a push that adds a
//     word makes it present, one that removes its last use makes it absent);
//   - otherwise (no vocabulary counted for the previous run: an index built
//     before vocabularies; page sources, whose runs touch pages one by one;
//     a full run that left files out) it is counted from the stored chunks,
//     one walk of the collection (weaviate.Store.ScanVocabulary);
//   - a run that finds the source up to date counts one only when none is
//     stored for its state.
//
// A vocabulary that could not be stored is logged, not an error of the run:
// answers then check absent names the way they did before vocabularies.

// vocabRun is what one run of a file-based source (git, markdown folder,
// API spec) changed in its vocabulary: Indexer.write fills it, batch by
// batch, counting terms as it goes, so that a run holds the counts (one
// entry per distinct term) rather than every chunk's search text. It is
// safe for concurrent use.
type vocabRun struct {
	full    bool     // stored was every chunk of the source: count added alone
	acl     []string // the source's ACL
	mu      sync.Mutex
	added   *retrieval.SourceVocabulary // terms of the chunks the run wrote or kept
	removed *retrieval.SourceVocabulary // terms of the stored chunks they replace (incremental runs)
	unknown bool                        // a full run left files out, whose stored chunks stay uncounted
}

// record notes chunks the run leaves stored (but those of files left out)
// and, for an incremental run, the search texts of the stored chunks they
// replace.
func (v *vocabRun) record(chunks []retrieval.Chunk, stored []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.added == nil {
		v.added, v.removed = retrieval.NewSourceVocabulary("", "", nil), retrieval.NewSourceVocabulary("", "", nil)
	}
	for _, c := range chunks {
		v.added.Count(c.SearchText, 1)
	}
	if !v.full {
		for _, t := range stored {
			v.removed.Count(t, 1)
		}
	}
}

// leftOut records that a full run left files out (their stored chunks stay,
// uncounted).
func (v *vocabRun) leftOut() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.unknown = v.full
}

// apply adds the run's counts to v: its added chunks, less its removed ones.
func (v *vocabRun) apply(to *retrieval.SourceVocabulary) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.added == nil {
		return
	}
	to.Chunks += v.added.Chunks - v.removed.Chunks
	for t, n := range v.added.Terms {
		to.Terms[t] += n
	}
	for t, n := range v.removed.Terms {
		to.Terms[t] -= n
	}
	for t, n := range to.Terms {
		if n <= 0 {
			delete(to.Terms, t)
		}
	}
}

// putVocabulary stores the vocabulary of the run that took the source from
// state prev to next (see above). A nil run counts it from the index; a page
// source's run that changed no chunk passes an empty incremental run, which
// keeps the stored vocabulary, stamped anew, when it was current.
func (ix *Indexer) putVocabulary(ctx context.Context, log *slog.Logger, run *vocabRun, prev, next retrieval.SourceState) {
	var v *retrieval.SourceVocabulary
	switch {
	case run == nil:
	case run.full && !run.unknown:
		v = retrieval.NewSourceVocabulary(next.Source, next.Branch, run.acl)
		run.apply(v)
	case !run.full:
		old, ok, err := ix.Store.ReadVocabulary(ctx, next.Source, next.Branch)
		if err != nil {
			log.Warn("could not read the vocabulary, counting it from the index", "err", err)
		}
		if ok && old.Current(prev) {
			v = old
			run.apply(v)
		}
	}
	ix.storeVocabulary(ctx, log, v, next)
}

// ensureVocabulary counts and stores the vocabulary of a source whose run
// found it up to date at state st, when none is stored for st.
func (ix *Indexer) ensureVocabulary(ctx context.Context, log *slog.Logger, st retrieval.SourceState) {
	ok, err := ix.Store.HasVocabulary(ctx, st)
	if err != nil {
		log.Warn("could not read the vocabulary stamp", "err", err)
		return
	}
	if !ok {
		ix.storeVocabulary(ctx, log, nil, st)
	}
}

// storeVocabulary stamps v with st and stores it; a nil v is counted from
// the stored chunks first.
func (ix *Indexer) storeVocabulary(ctx context.Context, log *slog.Logger, v *retrieval.SourceVocabulary, st retrieval.SourceState) {
	if v == nil {
		var ok bool
		var err error
		v, ok, err = ix.Store.ScanVocabulary(ctx, st.Source, st.Branch)
		if err != nil {
			log.Warn("vocabulary not stored: answers check absent names without it", "err", err)
			return
		}
		if !ok {
			log.Warn("vocabulary not stored: the source's chunks have different ACLs; answers check absent names without it")
			return
		}
	}
	v.CommitSHA, v.IndexedAt = st.CommitSHA, st.IndexedAt
	if err := ix.Store.PutVocabulary(ctx, v); err != nil {
		log.Warn("vocabulary not stored: answers check absent names without it", "err", err)
		return
	}
	log.Debug("vocabulary stored", "terms", len(v.Terms), "chunks", v.Chunks)
}
