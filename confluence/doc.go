// Package confluence reads Confluence pages and cuts them into heading
// sections for the index. Flow: a Client lists the pages of the configured
// spaces (Cloud REST v2 with cursor pagination, or Data Center / Server REST
// v1 with start/limit; CQL or a label narrow the scope through v1 search),
// Source compares nothing itself but hands ingest.IndexPages page refs with
// versions, and fetches the bodies of the pages whose version changed.
// Storage-format XHTML is prepared for goquery (CDATA bodies escaped,
// self-closed ac:/ri: elements opened and closed; see storage.go), walked
// into blocks (paragraphs, lists, tables as "header: value" rows, code macros
// byte-exact, panel bodies, task lists, links with their target page,
// mentioned users by display name, looked up once a sync) and split at
// H1-H3 into sections that become retrieval.Chunks. ExportSource does the same for a folder of
// Confluence HTML exports.
//
// The package knows nothing of Weaviate: ingest stores what it returns.
package confluence
