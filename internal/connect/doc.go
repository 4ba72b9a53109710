// Package connect opens the Weaviate store of the config for a command:
// it finds the server (the nodes of weaviate.urls or weaviate.url, else a
// local server already answering on weaviate.port, else a weaviate-server
// child process started now, as package weaviatelocal runs it) and opens
// the chunk collection for the configured embedder, with its semantic
// vectors when the embedder is a retrieval.Pair. An index run may
// re-embed what another embedder wrote or drop the collections first
// (Options); every other command refuses a collection of another embedder.
// cmd/ragbot makes the embedder and closes the Conn, which stops the
// child it may have started.
package connect
