package ingest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/ragbot/ragbot/ingest/scipcalls"
)

// The fingerprints below are what each kind of index run stores in
// SourceState.Settings and compares at the next run: when the stored one
// differs, the run reads the source again in full. Each is 16 hex digits
// (the first 8 bytes of a sha256) over the pipeline version, the code
// chunker options (Indexer.Code), the embedder's name, the redaction
// fingerprint (Redactor.Fingerprint; empty when Redact is nil) and the source's
// own settings. Only Code, Embedder and Redact of the Indexer are read, so
// `ragbot doctor` can compare a config with the stored index without
// indexing.

// GitSettings is the fingerprint IndexGit stores for a branch of src (its
// Branch does not enter it).
func (ix *Indexer) GitSettings(src GitSource) string {
	return ix.settings(fmt.Sprint(src.Include, src.Exclude, src.LinkTemplate, src.ACL, ix.NoGoTypes || src.NoGoTypes, ix.scipState(src)))
}

// scipState is the SCIP part of a git source's fingerprint: "off", or
// whether the indexers are installed, so that the first run after
// scripts/install-scip.sh (or after they are removed) reads the source
// again in full and resolves its calls, where it would otherwise find the
// commit up to date and keep the calls matched by name.
func (ix *Indexer) scipState(src GitSource) string {
	switch {
	case ix.NoSCIP || src.NoSCIP:
		return "scip off"
	case scipcalls.Installed(cmp.Or(ix.SCIPDir, scipcalls.Dir())) != nil:
		return "scip missing"
	}
	return "scip"
}

// DirSettings is the fingerprint IndexDir stores for src.
func (ix *Indexer) DirSettings(src DirSource) string {
	return ix.settings(fmt.Sprint(src.Exclude, src.ACL, src.LinkTemplate))
}

// SpecSettings is the fingerprint IndexSpec stores for src whose file holds
// data: it covers the file's content too, so a changed file differs.
func (ix *Indexer) SpecSettings(src SpecSource, data []byte) string {
	sum := sha256.Sum256(data)
	return ix.settings(fmt.Sprint("spec", hex.EncodeToString(sum[:]), src.ACL))
}

// PageSettings is the fingerprint IndexPages stores for src.
func (ix *Indexer) PageSettings(src PageSet) string {
	return pageSettings(src, ix.Embedder.Name()+ix.Redact.Fingerprint())
}
