package weaviate

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/ragbot/ragbot/retrieval"
)

// vocabClass keeps, per source and branch, the vocabulary of its chunks
// (retrieval.SourceVocabulary): the SourceState's commit and index time it
// was counted for, the source's ACL, and the terms with their counts in
// one property that is stored, not indexed (encodeTerms). A collection of
// its own, not properties of the state: the answer guards read a state
// per question, and would read the vocabulary with it.
func vocabClass(name string) *models.Class {
	f := func(n string) *models.Property { return fieldProp(n, "text") }
	return &models.Class{
		Class:      name,
		Vectorizer: "none",
		Properties: []*models.Property{
			f("source"), f("branch"), f("commit_sha"),
			{Name: "indexed_at", DataType: []string{"date"}},
			{Name: "acl", DataType: []string{"text[]"}, Tokenization: tokField},
			{Name: "chunks", DataType: []string{"int"}},
			{Name: "terms", DataType: []string{"int"}},
			{Name: "data", DataType: []string{"text"}, IndexFilterable: boolp(false), IndexSearchable: boolp(false)},
		},
	}
}

// vocabRow is a vocabulary object as GraphQL and REST return it.
type vocabRow struct {
	Source     string   `json:"source"`
	Branch     string   `json:"branch"`
	CommitSHA  string   `json:"commit_sha"`
	IndexedAt  string   `json:"indexed_at"`
	ACL        []string `json:"acl"`
	Chunks     int      `json:"chunks"`
	Data       string   `json:"data"`
	Additional struct {
		ID string `json:"id"`
	} `json:"_additional"`
}

// PutVocabulary replaces the stored vocabulary of v.Source and v.Branch.
// v.CommitSHA and v.IndexedAt must be those of the SourceState written
// for the same run, so that readers know it current.
func (s *Store) PutVocabulary(ctx context.Context, v *retrieval.SourceVocabulary) error {
	data, err := encodeTerms(v.Terms)
	if err != nil {
		return fmt.Errorf("weaviate: write vocabulary of %s@%s: %w", v.Source, v.Branch, err)
	}
	props := map[string]any{
		"source": v.Source, "branch": v.Branch, "commit_sha": v.CommitSHA, "acl": append([]string{}, v.ACL...),
		"chunks": v.Chunks, "terms": len(v.Terms), "data": data,
	}
	if !v.IndexedAt.IsZero() {
		props["indexed_at"] = v.IndexedAt.UTC().Format(time.RFC3339Nano)
	}
	if err := putObject(ctx, s.client, s.vocab, s.cl, v.ID(), props); err != nil {
		return fmt.Errorf("weaviate: write vocabulary of %s@%s: %w", v.Source, v.Branch, err)
	}
	s.vocabs.invalidate()
	return nil
}

// ReadVocabulary returns the stored vocabulary of source and branch; ok is
// false when there is none.
func (s *Store) ReadVocabulary(ctx context.Context, source, branch string) (v *retrieval.SourceVocabulary, ok bool, err error) {
	id := (&retrieval.SourceVocabulary{Source: source, Branch: branch}).ID()
	objs, err := s.client.Data().ObjectsGetter().WithClassName(s.vocab).WithID(id).WithConsistencyLevel(s.cl).Do(ctx)
	if isNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("weaviate: read vocabulary of %s@%s: %w", source, branch, describe(err))
	}
	if len(objs) == 0 {
		return nil, false, nil
	}
	p, _ := objs[0].Properties.(map[string]any)
	str := func(k string) string { v, _ := p[k].(string); return v }
	n, _ := p["chunks"].(float64)
	r := vocabRow{Source: str("source"), Branch: str("branch"), CommitSHA: str("commit_sha"), IndexedAt: str("indexed_at"),
		Chunks: int(n), Data: str("data")}
	if acl, ok := p["acl"].([]any); ok {
		for _, g := range acl {
			if s, ok := g.(string); ok {
				r.ACL = append(r.ACL, s)
			}
		}
	}
	v, err = r.vocabulary(true)
	if err != nil {
		return nil, false, fmt.Errorf("weaviate: read vocabulary of %s@%s: %w", source, branch, err)
	}
	return v, true, nil
}

// vocabulary is the row as a SourceVocabulary, its terms decoded when
// withTerms is set.
func (r vocabRow) vocabulary(withTerms bool) (*retrieval.SourceVocabulary, error) {
	v := retrieval.NewSourceVocabulary(r.Source, r.Branch, r.ACL)
	v.CommitSHA, v.Chunks = r.CommitSHA, r.Chunks
	v.IndexedAt, _ = time.Parse(time.RFC3339Nano, r.IndexedAt)
	if !withTerms {
		return v, nil
	}
	terms, err := decodeTerms(r.Data)
	if err != nil {
		return nil, err
	}
	v.Terms = terms
	return v, nil
}

// DeleteVocabulary deletes the stored vocabulary of source and branch; a
// missing one is no error.
func (s *Store) DeleteVocabulary(ctx context.Context, source, branch string) error {
	id := (&retrieval.SourceVocabulary{Source: source, Branch: branch}).ID()
	err := s.client.Data().Deleter().WithClassName(s.vocab).WithID(id).WithConsistencyLevel(s.cl).Do(ctx)
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("weaviate: delete vocabulary of %s@%s: %w", source, branch, describe(err))
	}
	s.vocabs.invalidate()
	return nil
}

// deleteVocabularies deletes the vocabularies that where matches (a
// source's, for ForgetSource).
func (s *Store) deleteVocabularies(ctx context.Context, where *filters.WhereBuilder) error {
	_, err := deleteAll(ctx, s.client, s.vocab, s.cl, where)
	s.vocabs.invalidate()
	return err
}

// ScanVocabulary counts the vocabulary of the chunks of source and branch
// as stored, reading the search_text of every chunk of the collection
// with the cursor API (a cursor cannot be filtered, so the cost is linear
// in the collection): how an index built before vocabularies gets one,
// and how a run whose changes cannot be counted (Confluence pages, files
// left out) makes it anew. The vocabulary's ACL is that of the chunks;
// ok is false when they do not all share one (no vocabulary can then tell
// an asker which terms they see).
func (s *Store) ScanVocabulary(ctx context.Context, source, branch string) (v *retrieval.SourceVocabulary, ok bool, err error) {
	type scanRow struct {
		Source     string   `json:"source"`
		Branch     string   `json:"branch"`
		SearchText string   `json:"search_text"`
		ACL        []string `json:"acl"`
		Additional struct {
			ID string `json:"id"`
		} `json:"_additional"`
	}
	fields := []graphql.Field{{Name: "source"}, {Name: "branch"}, {Name: "search_text"}, {Name: "acl"}, {Name: "_additional { id }"}}
	v = retrieval.NewSourceVocabulary(source, branch, nil)
	var acl []string
	ok = true
	first := true
	err = eachPage(ctx, s.client, s.chunk, fields, 500, func(r scanRow) string { return r.Additional.ID }, func(rows []scanRow) error {
		for _, r := range rows {
			if r.Source != source || r.Branch != branch {
				continue
			}
			groups := slices.DeleteFunc(slices.Clone(r.ACL), func(g string) bool { return g == ACLEveryone })
			slices.Sort(groups)
			if first {
				acl, first = groups, false
			} else if !slices.Equal(acl, groups) {
				ok = false
			}
			v.Count(r.SearchText, 1)
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("weaviate: count vocabulary of %s@%s: %w", source, branch, err)
	}
	v.ACL = acl
	return v, ok, nil
}

// encodeTerms is the stored form of a vocabulary's terms: "term\tcount"
// lines in byte order, gzipped, base64 (a text property holds strings).
func encodeTerms(terms map[string]int) (string, error) {
	keys := slices.Sorted(maps.Keys(terms))
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(zw)
	for _, t := range keys {
		w.WriteString(t)
		w.WriteByte('\t')
		w.WriteString(strconv.Itoa(terms[t]))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// decodeTerms reads encodeTerms' output back.
func decodeTerms(data string) (map[string]int, error) {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("vocabulary data: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("vocabulary data: %w", err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("vocabulary data: %w", err)
	}
	terms := make(map[string]int, bytes.Count(text, []byte{'\n'}))
	rest := string(text)
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		t, n, ok := strings.Cut(line, "\t")
		c, err := strconv.Atoi(n)
		if !ok || err != nil || c <= 0 {
			return nil, fmt.Errorf("vocabulary data: bad line %q", line)
		}
		terms[t] = c
	}
	return terms, nil
}

// HasVocabulary reports whether a vocabulary counted for st (its commit and
// index time) is stored, reading its stamp only.
func (s *Store) HasVocabulary(ctx context.Context, st retrieval.SourceState) (bool, error) {
	id := (&retrieval.SourceVocabulary{Source: st.Source, Branch: st.Branch}).ID()
	where := filters.Where().WithPath([]string{"id"}).WithOperator(filters.Equal).WithValueText(id)
	resp, err := gqlResult(s.client.GraphQL().Get().WithClassName(s.vocab).WithWhere(where).WithConsistencyLevel(s.gqlLevel()).WithLimit(1).
		WithFields(graphql.Field{Name: "source"}, graphql.Field{Name: "branch"}, graphql.Field{Name: "commit_sha"}, graphql.Field{Name: "indexed_at"}).Do(ctx))
	if err != nil {
		return false, fmt.Errorf("weaviate: read vocabulary stamp of %s@%s: %w", st.Source, st.Branch, describe(err))
	}
	rows, err := decodeGet[vocabRow](resp, s.vocab)
	if err != nil || len(rows) == 0 {
		return false, err
	}
	v, err := rows[0].vocabulary(false)
	return err == nil && v.Current(st), err
}
