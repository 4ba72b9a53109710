package retrieval

import (
	"time"

	"github.com/google/uuid"
)

// SourceState is what ragbot remembers about one source and branch between
// index runs (the SourceState collection; docs/architecture.md, "Indexing
// flow", step 5).
type SourceState struct {
	Source    string    // source id, "repo:payments"
	Branch    string    // "" for sources without branches
	CommitSHA string    // last fully indexed commit ("" for non-git sources)
	Embedder  string    // embedder name the run used
	Settings  string    // fingerprint of the chunking settings the run used
	IndexedAt time.Time // when the last successful run finished
	LastError string    // "" after a successful run
	Files     int       // files indexed by the last successful run
	Chunks    int       // chunks stored after it
}

// ID is the state's object id: the UUIDv5 of "state|<source>|<branch>" in
// the namespace of chunk ids, so each source and branch has one state object.
func (st SourceState) ID() string {
	return uuid.NewSHA1(idNamespace, []byte("state|"+st.Source+"|"+st.Branch)).String()
}
