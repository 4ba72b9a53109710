// Package forget deletes from the index what should no longer be there:
// chunks by source, branch, path glob or Confluence page, with the index
// states counting them and the stored votes citing them (`ragbot
// forget`); the sources the config no longer lists (`ragbot index
// --prune`, reported without it); and votes older than
// feedback.retention (Retention, scheduled by `ragbot serve`). It works on
// the Weaviate store and the loaded config; cmd/ragbot parses the flags
// and gives it a view of the configured sources (Sources).
package forget
