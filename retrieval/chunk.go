package retrieval

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// TypesResolved is Chunk.Types of a chunk whose Calls were resolved by
// type-checking its module (ingest/gocalls).
const TypesResolved = "go/types"

// SCIPPython and SCIPTypeScript are Chunk.Types of a Python or
// JavaScript/TypeScript chunk whose Calls were resolved by a SCIP indexer
// (ingest/scipcalls): scip-python or scip-typescript.
const (
	SCIPPython     = "scip-python"
	SCIPTypeScript = "scip-typescript"
)

// UnresolvedCall starts the name of an entry of Chunk.Calls that a SCIP
// indexer did not resolve: "?.close@12" is a ".close(" on line 12 where no
// method named close has a symbol (its receiver's type is unknown).
const UnresolvedCall = "?."

// IsSCIP reports whether types, a Chunk.Types, says a SCIP indexer
// resolved the chunk's calls.
func IsSCIP(types string) bool { return types == SCIPPython || types == SCIPTypeScript }

// TypesUnavailable starts Chunk.Types of a Go chunk whose uses could not
// be resolved; the reason follows.
const TypesUnavailable = "unavailable: "

// Kinds of chunk, stored in Chunk.Kind.
const (
	KindCode = "code" // one symbol of a source file, or a line window of it
	KindDoc  = "doc"  // one heading section of a document
	KindAPI  = "api"  // one operation of an API description
)

// A Chunk is the unit of indexing and retrieval: one symbol, one heading section
// or one API endpoint. StartLine and EndLine are 1-based and inclusive, and count
// lines (LF-terminated), not bytes. The fields mirror the Weaviate collection
// "Chunk" one to one (retrieval/weaviate's chunkClass).
type Chunk struct {
	Source     string // stable id: "repo:<name>", "docs:<name>", "confluence:<space>", "openapi:<name>"
	Kind       string // KindCode, KindDoc or KindAPI
	Path       string // repo-relative file path with "/" separators, page path or spec file
	Symbol     string // "Type.Method", "func", "Guide > Setup" heading path, "GET /v1/orders/{id}"; "" for a line window of an unparsed file
	SymbolKind string // function, method, class, interface, type, var, const, section, window
	Language   string // go, python, javascript, typescript, java, markdown, ... ("" when unknown)
	Signature  string // the declaration line(s), repeated on every window of a split symbol
	Content    string // what is shown: doc comment + signature + body, or the section text; valid UTF-8, LF line ends
	SearchText string // what BM25 reads: content plus split identifiers, path segments and headings (see SearchText)
	StartLine  int    // first line, 1-based
	EndLine    int    // last line, inclusive
	Ordinal    int    // 0 for the first chunk with this Path and Symbol, 1 for the next window or duplicate, ...
	// Refs are the names the chunk's code uses, each once: called functions,
	// selected fields, identifiers, types, and string literals that look
	// like keys ("RAGBOT_TOKEN", "server.port"); nil for prose and for files
	// without a grammar. Usage answers find callers by them (usage.go).
	Refs []string
	// Calls are, for Go code whose module type-checked, the functions and
	// methods its code uses (calls, method and function values), each
	// resolved by go/types to its declaration: "Name@Line" with Name
	// "Type.Method" or "pkg.Func" (ingest/gocalls' Call) and Line 1-based
	// in the file, sorted by line; their names are in Refs too. For
	// Python and JavaScript/TypeScript code indexed by SCIP, the methods
	// and functions it references, "Type.method@Line" or
	// "module.func@Line" (ingest/scipcalls' Call), and the ".method(" calls
	// SCIP gave no symbol, "?.method@Line" (UnresolvedCall). nil when Types
	// is not TypesResolved or IsSCIP, or the code uses no function.
	Calls []string
	// Types says whether Calls hold the chunk's resolved uses:
	// TypesResolved, SCIPPython or SCIPTypeScript, or "unavailable: " and
	// why (the package does not type-check, no go command, the SCIP
	// indexer is not installed, ...) for a chunk whose calls could not be
	// resolved; "" for other languages, for sources with go_types or scip
	// false, and for chunks indexed before type resolution.
	Types string
	// Package is, for a Go chunk whose Types is TypesResolved, the name in
	// its file's package clause ("retry", "retry_test"); "" otherwise.
	Package string

	CommitSHA string // full 40-hex SHA the content was read at ("" for non-git sources); render the first 7
	Branch    string // branch the chunk belongs to ("" for non-git sources)
	URL       string // deep link to the lines ("" when the source has no web address)
	Author    string // last committer of the file at CommitSHA, or the page author
	Version   string // spec or page version ("" for code)

	ModifiedAt time.Time // when the content last changed (commit time for git sources)
	IndexedAt  time.Time // when ragbot wrote it, not when the content changed

	ContentHash string   // hex sha256 of Content; unchanged chunks are not re-embedded
	ACL         []string // groups allowed to see it; empty means everyone
}

// idNamespace is the namespace of chunk ids: UUIDv5 over NAMESPACE_DNS, as the
// Weaviate Python client's generate_uuid5 does (weaviate.util.generate_uuid5:
// uuid5(NAMESPACE_DNS, namespace + identifier), with an empty namespace).
var idNamespace = uuid.NameSpaceDNS

// ID returns the Weaviate object id of the chunk: the UUIDv5 (RFC 4122 §4.3,
// namespace DNS) of "source|branch|path|symbol|ordinal" (docs/architecture.md,
// "Chunk ids"). Indexing
// the same chunk again therefore replaces the same object.
func (c Chunk) ID() string {
	key := c.Source + "|" + c.Branch + "|" + c.Path + "|" + c.Symbol + "|" + strconv.Itoa(c.Ordinal)
	return uuid.NewSHA1(idNamespace, []byte(key)).String()
}

// HashContent returns the hex sha256 of content, the value of Chunk.ContentHash.
func HashContent(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// Validate reports every missing or inconsistent field, joined into one error
// that names the chunk by path and lines. The store calls it before each upsert.
func (c Chunk) Validate() error {
	var errs []error
	bad := func(field, msg string) { errs = append(errs, fmt.Errorf("%s: %s", field, msg)) }
	if c.Source == "" {
		bad("source", "must not be empty")
	}
	if !slices.Contains([]string{KindCode, KindDoc, KindAPI}, c.Kind) {
		bad("kind", fmt.Sprintf("got %q, want one of code, doc, api", c.Kind))
	}
	if c.Path == "" {
		bad("path", "must not be empty")
	}
	if c.StartLine < 1 || c.EndLine < c.StartLine {
		bad("start_line/end_line", fmt.Sprintf("got %d-%d, want 1 <= start <= end", c.StartLine, c.EndLine))
	}
	if c.Content == "" {
		bad("content", "must not be empty")
	}
	if c.ContentHash != "" && c.ContentHash != HashContent(c.Content) {
		bad("content_hash", "does not match content")
	}
	if c.IndexedAt.IsZero() {
		bad("indexed_at", "must be set")
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("chunk %s:%d-%d %q: %w", c.Path, c.StartLine, c.EndLine, c.Symbol, err)
	}
	return nil
}

// windowMarkerLine is the line between the repeated signature and the lines
// of a later window of a split code symbol (ingest/code's emit.go).
const windowMarkerLine = "..."

// FileLines reports whether the lines of Content below its header (see
// ContentLines) are the file's lines StartLine..EndLine: true for code and
// doc chunks; false for an API operation, whose Content is a description
// written from the document (ingest/openapi's describe) and whose
// StartLine..EndLine is the operation's place in it.
func (c Chunk) FileLines() bool { return c.Kind != KindAPI }

// ContentLines splits Content at LF into header, the lines above the
// chunk's range, and body, at most EndLine-StartLine+1 lines in which
// body[i] is file line StartLine+i (when FileLines). Lines are numbered
// from the top, so that a blank last line, or a content stored shorter
// than its range, shifts none of them.
//
// A header is what a later window of a split symbol or section repeats
// above its lines: for code exactly the Signature's lines and a "..."
// line (ingest/code's emit.go); for a doc the heading's line(s), which
// Signature holds trimmed (ingest/markdown, confluence), when the lines
// below them are as many as the range's. Any other content with more
// lines than its range has the surplus at its top taken as a header,
// after a final LF is read as ending the last line. header is nil when
// there is none.
func (c Chunk) ContentLines() (header, body []string) {
	all := strings.Split(c.Content, "\n")
	span := c.EndLine - c.StartLine + 1
	n := 0
	if c.FileLines() && span > 0 && len(all) > span {
		sig := strings.Split(c.Signature, "\n")
		switch {
		case c.Signature != "" && c.Kind == KindCode && strings.HasPrefix(c.Content, c.Signature+"\n"+windowMarkerLine+"\n"):
			n = len(sig) + 1
		case c.Signature != "" && c.Kind == KindDoc && len(all)-len(sig) == span &&
			slices.EqualFunc(sig, all[:len(sig)], func(s, l string) bool { return s == strings.TrimSpace(l) }):
			n = len(sig)
		default:
			m := len(all)
			for m > span && all[m-1] == "" {
				m--
			}
			n = m - span
		}
	}
	header, body = all[:n:n], all[n:]
	if c.FileLines() && span > 0 && len(body) > span {
		body = body[:span]
	}
	if n == 0 {
		header = nil
	}
	return header, body
}
