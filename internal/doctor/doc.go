// Package doctor checks a ragbot deployment and says how to fix what is
// wrong, one line per check (`ragbot doctor`): the config, Weaviate (reachable,
// its version and nodes, every shard writable), the collection's embedder and
// coverage thresholds against the config, each source's index against its
// branch head and the config's settings, the webhook secrets, redaction, and
// the Confluence, Slack and Teams credentials. It changes nothing: it reads
// Weaviate's REST API and calls each service once. cmd/ragbot loads the
// config and makes the embedder and redactor (Deployment); the checks live
// here, by concern: weaviate.go, index.go, secrets.go.
package doctor
