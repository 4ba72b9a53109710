package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
)

// searchProperties are what the BM25 side reads: the search text, and the
// symbol name again with weight 3, so a question naming a symbol ranks its
// definition above chunks that merely mention it. On the public eval set
// (docs/evaluation.md; scripts/bench-eval.sh) recall@5 was 0.585 without the symbol boost, 0.615
// with ^2, 0.646 with ^3 and 0.615 with ^5, no kind lower at ^3.
var searchProperties = []string{"search_text", "symbol^3"}

// Search runs one hybrid query with relativeScoreFusion, the filters applied
// inside Weaviate (never afterwards), and returns hits best first. GraphQL
// errors arrive inside HTTP 200 and are returned as errors here.
func (s *Store) Search(ctx context.Context, q retrieval.Query) ([]retrieval.Hit, error) {
	get, err := s.searchGet(q)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	resp, err := gqlResult(get.Do(ctx))
	if err != nil {
		s.log.Warn("weaviate search failed", "query", q.Text, "err", err)
		return nil, fmt.Errorf("weaviate hybrid search: %w", describe(err))
	}
	hits, err := s.searchHits(resp, s.chunk, q)
	if err != nil {
		return nil, err
	}
	s.log.Debug("weaviate search", "query", q.Text, "alpha", q.Alpha, "hits", len(hits), "ms", time.Since(start).Milliseconds())
	return hits, nil
}

// SearchAll runs the queries of qs in one GraphQL request, each as an
// aliased Get (GraphQL spec, "Field Alias"; spec.graphql.org/October2021/#sec-Field-Alias),
// and returns each query's hits as Search would, in the order of qs. The
// queries are independent: each is scored and fused over its own result
// set, as in its own request. Errors: a limit out of range, or a Weaviate
// failure of any query (GraphQL errors arrive inside HTTP 200).
func (s *Store) SearchAll(ctx context.Context, qs []retrieval.Query) ([][]retrieval.Hit, error) {
	if len(qs) == 1 {
		hits, err := s.Search(ctx, qs[0])
		return [][]retrieval.Hit{hits}, err
	}
	var b strings.Builder
	b.WriteString("{Get{")
	for i, q := range qs {
		get, err := s.searchGet(q)
		if err != nil {
			return nil, err
		}
		// Build gives "{Get {Chunk (...) {...}}}": keep what is inside Get, aliased.
		one := strings.TrimSpace(get.Build())
		inner, ok := strings.CutPrefix(one, "{Get {")
		inner, ok2 := strings.CutSuffix(inner, "}}")
		if !ok || !ok2 {
			return nil, fmt.Errorf("weaviate search: unexpected query shape %.40q", one)
		}
		fmt.Fprintf(&b, "q%d: %s ", i, inner)
	}
	b.WriteString("}}")
	start := time.Now()
	resp, err := gqlResult(s.client.GraphQL().Raw().WithQuery(b.String()).Do(ctx))
	if err != nil {
		s.log.Warn("weaviate search failed", "queries", len(qs), "query", qs[0].Text, "err", err)
		return nil, fmt.Errorf("weaviate hybrid search (%d queries in one request): %w", len(qs), describe(err))
	}
	out := make([][]retrieval.Hit, len(qs))
	for i, q := range qs {
		if out[i], err = s.searchHits(resp, fmt.Sprintf("q%d", i), q); err != nil {
			return nil, err
		}
	}
	s.log.Debug("weaviate search", "query", qs[0].Text, "queries", len(qs), "ms", time.Since(start).Milliseconds())
	return out, nil
}

// searchGet builds the GraphQL Get of one hybrid query.
func (s *Store) searchGet(q retrieval.Query) (*graphql.GetBuilder, error) {
	if q.Limit < 1 || q.Limit > 200 {
		return nil, fmt.Errorf("search: limit %d out of range 1..200", q.Limit)
	}
	props := q.Properties
	if props == nil {
		props = searchProperties
	}
	gql := s.client.GraphQL()
	h := gql.HybridArgumentBuilder().WithQuery(q.Text).WithAlpha(float32(q.Alpha)).
		WithFusionType(graphql.RelativeScore).WithProperties(props)
	switch {
	case s.bothVectors(q):
		h = h.WithTargets(gql.MultiTargetArgumentBuilder().ManualWeights(map[string]float32{
			VectorLexical: float32(1 - s.semW), s.slot: float32(s.semW)})).
			WithSearches(gql.HybridSearchesArgumentBuilder().WithNearVector(gql.NearVectorArgBuilder().
				WithVectorPerTarget(map[string][]float32{VectorLexical: q.Vector, s.slot: q.Semantic})))
	case s.sem != "" && s.semW == 1 && len(q.Semantic) > 0:
		h = h.WithVector(q.Semantic).WithTargetVectors(s.slot)
	case q.Vector != nil:
		h = h.WithVector(q.Vector).WithTargetVectors(VectorLexical)
	default: // BM25 only (alpha 0): no vector is searched, but a collection of several must name one
		h = h.WithTargetVectors(VectorLexical)
	}
	get := gql.Get().WithClassName(s.chunk).WithHybrid(h).WithLimit(q.Limit).WithConsistencyLevel(s.gqlLevel()).
		WithFields(resultFields("id score explainScore")...)
	if w := where(q); w != nil {
		get = get.WithWhere(w)
	}
	return get, nil
}

// searchHits reads the hits of q from the Get result named alias.
func (s *Store) searchHits(resp *models.GraphQLResponse, alias string, q retrieval.Query) ([]retrieval.Hit, error) {
	rows, err := decodeGet[row](resp, alias)
	if err != nil {
		return nil, err
	}
	both := s.bothVectors(q)
	hits := make([]retrieval.Hit, 0, len(rows))
	for _, r := range rows {
		hit := retrieval.Hit{Chunk: r.chunk(), ID: r.Additional.ID}
		hit.Score, _ = strconv.ParseFloat(r.Additional.Score, 64)
		var vec float64
		hit.BM25, vec = parseExplain(r.Additional.ExplainScore)
		if q.Vector != nil && !both && (s.sem == "" || s.semW < 1) {
			// The vector side searched the lexical vector alone: its score is
			// the lexical cosine. Over both vectors, or the semantic one, it
			// is not, and the caller reads the stored vectors instead
			// (retrieval's fillSimilarity).
			hit.Similarity = vec
		}
		hit.Debug = fmt.Sprintf("hybrid(%.3f) bm25(%.2f) vec(%.3f)", hit.Score, hit.BM25, vec)
		hits = append(hits, hit)
	}
	return hits, nil
}

// bothVectors reports whether q's vector side searches both named vectors:
// a semantic embedder is configured with a weight strictly between 0 and 1
// and q carries both vectors. The vector side is then Weaviate's
// multi-target vector search (Weaviate docs, 'Multiple target vectors',
// available since v1.26): each target's distances are weighted by
// manualWeights and summed, with the distance of an object that only one
// target returned computed from its stored vector for the other, so no
// candidate lacks a part. That combined list is fused with BM25 by
// relativeScoreFusion as with one vector.
func (s *Store) bothVectors(q retrieval.Query) bool {
	return s.sem != "" && s.semW > 0 && s.semW < 1 && q.Vector != nil && len(q.Semantic) > 0
}

func where(q retrieval.Query) *filters.WhereBuilder {
	var ops []*filters.WhereBuilder
	if len(q.Sources) > 0 {
		ops = append(ops, filters.Where().WithPath([]string{"source"}).WithOperator(filters.ContainsAny).WithValueText(q.Sources...))
	}
	if len(q.Paths) > 0 {
		ops = append(ops, filters.Where().WithPath([]string{"path"}).WithOperator(filters.ContainsAny).WithValueText(q.Paths...))
	}
	if len(q.Refs) > 0 {
		ops = append(ops, filters.Where().WithPath([]string{"refs"}).WithOperator(filters.ContainsAny).WithValueText(q.Refs...))
	}
	if q.Branch != "" {
		ops = append(ops, filters.Where().WithOperator(filters.Or).WithOperands([]*filters.WhereBuilder{
			filters.Where().WithPath([]string{"branch"}).WithOperator(filters.Equal).WithValueText(q.Branch),
			filters.Where().WithPath([]string{"branch"}).WithOperator(filters.Equal).WithValueText(""),
		}))
	}
	// ACL: a chunk is visible when its acl is empty or shares a group with the
	// asker. Empty text[] values are not indexed, so "empty" is tested with the
	// chunk's own marker group "*" written by the indexer (see ACLEveryone).
	groups := append([]string{ACLEveryone}, q.Groups...)
	ops = append(ops, filters.Where().WithPath([]string{"acl"}).WithOperator(filters.ContainsAny).WithValueText(groups...))
	if len(ops) == 1 {
		return ops[0]
	}
	return filters.Where().WithOperator(filters.And).WithOperands(ops)
}

// ACLEveryone is stored in a chunk's acl when its source has no ACL, so that
// the ACL filter can match "everyone" with ContainsAny.
const ACLEveryone = "*"

// explainRe reads the raw scores out of Weaviate's explainScore text, e.g.
// "Hybrid (Result Set keyword,bm25) Document X: original score 0.42798, normalized score: 0.5 -
// Hybrid (Result Set vector,hybridVector) Document X: original score 0.7071, ...".
// That is weaviate-server 1.35.2's output; the property is described in
// Weaviate docs, 'Hybrid search' (explainScore).
var explainRe = regexp.MustCompile(`Result Set (keyword|vector)[^:]*: original score ([-0-9.eE+]+)`)

func parseExplain(s string) (bm25, sim float64) {
	for _, m := range explainRe.FindAllStringSubmatch(s, -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			continue
		}
		if m[1] == "keyword" {
			bm25 = v
		} else {
			sim = v
		}
	}
	return bm25, sim
}

// vectorFields asks a GraphQL Get for the named vectors the store reads.
func (s *Store) vectorFields() string {
	if s.sem == "" {
		return "vectors { " + VectorLexical + " }"
	}
	return "vectors { " + VectorLexical + " " + s.slot + " }"
}

func resultFields(additional string) []graphql.Field {
	fs := make([]graphql.Field, 0, len(chunkFields)+1)
	for _, f := range chunkFields {
		fs = append(fs, graphql.Field{Name: f})
	}
	return append(fs, graphql.Field{Name: "_additional { " + additional + " }"})
}

// row is one object of a GraphQL Get answer.
type row struct {
	Source      string   `json:"source"`
	Kind        string   `json:"kind"`
	Path        string   `json:"path"`
	Symbol      string   `json:"symbol"`
	SymbolKind  string   `json:"symbol_kind"`
	Language    string   `json:"language"`
	Signature   string   `json:"signature"`
	Content     string   `json:"content"`
	SearchText  string   `json:"search_text"` // read by ListStoredPaths only
	StartLine   int      `json:"start_line"`
	EndLine     int      `json:"end_line"`
	Ordinal     int      `json:"ordinal"`
	CommitSHA   string   `json:"commit_sha"`
	Branch      string   `json:"branch"`
	URL         string   `json:"url"`
	Author      string   `json:"author"`
	Version     string   `json:"version"`
	ModifiedAt  string   `json:"modified_at"`
	IndexedAt   string   `json:"indexed_at"`
	ContentHash string   `json:"content_hash"`
	ACL         []string `json:"acl"`
	Calls       []string `json:"calls"`
	Types       string   `json:"types"`
	Package     string   `json:"package"`
	Pending     bool     `json:"semantic_pending"` // read by ListStored and ListStoredPaths only
	Additional  struct {
		ID           string               `json:"id"`
		Score        string               `json:"score"`
		ExplainScore string               `json:"explainScore"`
		Vectors      map[string][]float32 `json:"vectors"`
	} `json:"_additional"`
}

func (r row) chunk() retrieval.Chunk {
	parse := func(s string) time.Time {
		t, _ := time.Parse(time.RFC3339Nano, s)
		return t
	}
	acl := slices.DeleteFunc(slices.Clone(r.ACL), func(g string) bool { return g == ACLEveryone })
	if len(acl) == 0 {
		acl = nil
	}
	return retrieval.Chunk{
		Source: r.Source, Kind: r.Kind, Path: r.Path, Symbol: r.Symbol, SymbolKind: r.SymbolKind,
		Language: r.Language, Signature: r.Signature, Content: r.Content,
		StartLine: r.StartLine, EndLine: r.EndLine, Ordinal: r.Ordinal,
		CommitSHA: r.CommitSHA, Branch: r.Branch, URL: r.URL, Author: r.Author, Version: r.Version,
		ModifiedAt: parse(r.ModifiedAt), IndexedAt: parse(r.IndexedAt), ContentHash: r.ContentHash, ACL: acl,
		Calls: r.Calls, Types: r.Types, Package: r.Package,
	}
}

// gqlResult passes on a GraphQL request's answer and error, and when the
// request succeeded, the GraphQL errors of its HTTP-200 answer as one error.
func gqlResult(resp *models.GraphQLResponse, err error) (*models.GraphQLResponse, error) {
	if err != nil || resp == nil || len(resp.Errors) == 0 {
		return resp, err
	}
	msgs := make([]string, 0, len(resp.Errors))
	for _, e := range resp.Errors {
		msgs = append(msgs, e.Message)
	}
	return resp, errors.New("graphql: " + strings.Join(msgs, "; "))
}

// decodeGet reads the Get result named class (or the alias given in the
// query) into rows of type T.
func decodeGet[T any](resp *models.GraphQLResponse, class string) ([]T, error) {
	raw, err := json.Marshal(resp.Data["Get"])
	if err != nil {
		return nil, fmt.Errorf("weaviate answer: %w", err)
	}
	var get map[string][]T
	if err := json.Unmarshal(raw, &get); err != nil {
		return nil, fmt.Errorf("weaviate answer: %w", err)
	}
	return get[class], nil
}
