// Package sources turns the config's sources into what ingest indexes: a
// git source into an ingest.Repo (its repository, or the clone of its
// remote, with branches, token and webhook secret), a markdown folder into
// an ingest.DirSource, a Confluence space or HTML export into an
// ingest.PageSet (through package confluence), and each Confluence space
// into the scheduled re-sync `ragbot serve` runs (PageSyncs). Index runs
// `ragbot index` over them: each configured source, or the ones asked for,
// one after the other. It reads the loaded config and ingest's types and
// knows nothing of the commands; cmd/ragbot makes the ingest.Indexer.
package sources
