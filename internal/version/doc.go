// Package version says what `ragbot version` reports: ragbot's version and
// commit (as scripts/build.sh stamped them at link time, else from the
// build info the go command records), the Go version, and, for a loaded
// config, the configured embedder and the version of the Weaviate server
// if it already answers. It starts no server. cmd/ragbot holds the
// variables the linker stamps (-X main.stampedCommit and the like) and
// passes them down as a Stamp.
package version
