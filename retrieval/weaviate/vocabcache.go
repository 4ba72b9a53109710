package weaviate

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ragbot/ragbot/retrieval"
)

// vocabTTL is how long Vocabulary trusts the stamps it read (which
// vocabulary is current for which state): a source indexed by another
// process (a `ragbot index` run, another serve replica) is seen at most
// this late. This process's own index runs call InvalidateCounts, which
// drops the stamps at once.
const vocabTTL = 30 * time.Second

// vocabCache holds what Vocabulary read: the stamps of the states and
// vocabularies, and the vocabularies loaded, by source and branch. The
// zero value is ready; safe for concurrent use. Loading is done under the
// lock: a question waits for the first load of a vocabulary (tens of
// milliseconds), never for another question's search.
type vocabCache struct {
	mu     sync.Mutex
	read   time.Time // when stamps were read; zero: read again
	stamps []vocabStamp
	loaded map[string]*retrieval.SourceVocabulary // source|branch -> its terms, as of the stamp it was loaded at
}

// vocabStamp is one source and branch as the stamps say: its state and,
// when current, its vocabulary (terms not loaded).
type vocabStamp struct {
	state   retrieval.SourceState
	current *retrieval.SourceVocabulary // nil: no vocabulary counted for this state
}

func (c *vocabCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read = time.Time{}
}

// Vocabulary implements retrieval.VocabularySource: the current
// vocabularies of the sources and branches within q's Sources, Branch and
// Groups, from memory. Every vocabTTL it reads, in one GraphQL request,
// the states and the vocabularies' stamps (no terms), and it loads the
// terms of a vocabulary the first time it is needed and again after it
// changed. ok is false when a source and branch in scope has no current
// vocabulary (an index written before vocabularies, or by an older
// ragbot; `ragbot index` counts one), or when nothing is in scope.
func (s *Store) Vocabulary(ctx context.Context, q retrieval.Query) (retrieval.Vocabulary, bool, error) {
	c := &s.vocabs
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.read) > vocabTTL {
		stamps, err := s.readStamps(ctx)
		if err != nil {
			return nil, false, err
		}
		c.stamps, c.read = stamps, time.Now()
	}
	var out retrieval.Vocabulary
	for _, st := range c.stamps {
		probe := retrieval.SourceVocabulary{Source: st.state.Source, Branch: st.state.Branch}
		if !probe.InScope(retrieval.Query{Sources: q.Sources, Branch: q.Branch}) {
			continue
		}
		if st.current == nil {
			return nil, false, nil
		}
		if !st.current.InScope(q) { // by its ACL
			continue
		}
		key := st.state.Source + "|" + st.state.Branch
		v := c.loaded[key]
		if v == nil || !v.Current(st.state) {
			var ok bool
			var err error
			if v, ok, err = s.ReadVocabulary(ctx, st.state.Source, st.state.Branch); err != nil {
				return nil, false, err
			}
			if !ok || !v.Current(st.state) { // replaced since the stamps were read
				c.read = time.Time{}
				return nil, false, nil
			}
			if c.loaded == nil {
				c.loaded = map[string]*retrieval.SourceVocabulary{}
			}
			c.loaded[key] = v
		}
		out = append(out, v)
	}
	return out, len(out) > 0, nil
}

// readStamps reads every state and every vocabulary's stamp (source,
// branch, commit, index time, ACL; not the terms) in one request, and
// pairs each state with the vocabulary counted for it.
func (s *Store) readStamps(ctx context.Context) ([]vocabStamp, error) {
	q := fmt.Sprintf(`{Get{s: %s(limit: %d){source branch commit_sha indexed_at} v: %s(limit: %d){source branch commit_sha indexed_at acl chunks}}}`,
		s.state, maxFiltered, s.vocab, maxFiltered)
	resp, err := gqlResult(s.client.GraphQL().Raw().WithQuery(q).Do(ctx))
	if err != nil {
		return nil, fmt.Errorf("weaviate: read vocabulary stamps: %w", describe(err))
	}
	states, err := decodeGet[vocabRow](resp, "s")
	if err != nil {
		return nil, err
	}
	vocabs, err := decodeGet[vocabRow](resp, "v")
	if err != nil {
		return nil, err
	}
	byKey := map[string]vocabRow{}
	for _, v := range vocabs {
		byKey[v.Source+"|"+v.Branch] = v
	}
	out := make([]vocabStamp, 0, len(states))
	for _, r := range states {
		st := retrieval.SourceState{Source: r.Source, Branch: r.Branch, CommitSHA: r.CommitSHA}
		st.IndexedAt, _ = time.Parse(time.RFC3339Nano, r.IndexedAt)
		stamp := vocabStamp{state: st}
		if vr, ok := byKey[r.Source+"|"+r.Branch]; ok {
			if v, err := vr.vocabulary(false); err == nil && v.Current(st) {
				stamp.current = v
			}
		}
		out = append(out, stamp)
	}
	return out, nil
}
