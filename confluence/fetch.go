package confluence

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/ragbot/ragbot/ingest"
)

// FetchPages fetches the storage-format bodies of refs, FetchBatch pages a
// request (Cloud: REST v2 `GET /pages?id=...`; Data Center: CQL `id in
// (...)`), splits each page into sections and calls fn with it. Pages that
// are gone since the listing are simply not returned by the server. Errors
// name the pages of the failed request.
func (s *Source) FetchPages(ctx context.Context, refs []ingest.PageRef, fn func(ingest.Page) error) error {
	batch := s.c.opt.FetchBatch
	for start := 0; start < len(refs); start += batch {
		part := refs[start:min(start+batch, len(refs))]
		metas, err := s.fetch(ctx, part)
		if err != nil {
			return err
		}
		if err := s.lookUpUsers(ctx, metas); err != nil {
			return err
		}
		for _, m := range metas {
			if err := fn(s.page(m)); err != nil {
				return err
			}
		}
	}
	return nil
}

// fetch fetches one batch of pages with their bodies.
func (s *Source) fetch(ctx context.Context, refs []ingest.PageRef) ([]pageMeta, error) {
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	op := fetchOp(refs)
	var out []pageMeta
	if s.c.Flavour() == Cloud {
		q := url.Values{"id": {strings.Join(ids, ",")}, "body-format": {"storage"}, "limit": {strconv.Itoa(len(ids))}}
		err := walk(ctx, s.c, op, s.c.base+"/api/v2/pages?"+q.Encode(), true, collect[v2Page](&out, len(ids)))
		return out, err
	}
	q := url.Values{"cql": {"id in (" + strings.Join(ids, ",") + ")"}, "expand": {"body.storage,version,space"}, "limit": {strconv.Itoa(len(ids))}}
	err := walk(ctx, s.c, op, s.c.base+"/rest/api/content/search?"+q.Encode(), false, collect[v1Content](&out, len(ids)))
	return out, err
}

// collect appends the pages of each answer to out and stops the walk once
// out has want pages: Data Center would otherwise follow the next link of a
// full page to an empty one.
func collect[T interface{ meta(string) pageMeta }](out *[]pageMeta, want int) func([]T, string) error {
	return func(rs []T, base string) error {
		for _, p := range rs {
			*out = append(*out, p.meta(base))
		}
		if len(*out) >= want {
			return errStop
		}
		return nil
	}
}

// fetchOp names a batch in errors: `fetch page 98391 "Deploy runbook"`, or
// `fetch pages 98391 "Deploy runbook", 98392 "Rollback" and 48 more`.
func fetchOp(refs []ingest.PageRef) string {
	if len(refs) == 1 {
		return fmt.Sprintf("fetch page %s %q", refs[0].ID, refs[0].Title)
	}
	var parts []string
	for _, r := range refs[:min(2, len(refs))] {
		parts = append(parts, fmt.Sprintf("%s %q", r.ID, r.Title))
	}
	op := "fetch pages " + strings.Join(parts, ", ")
	if len(refs) > 2 {
		op += fmt.Sprintf(" and %d more", len(refs)-2)
	}
	return op
}

// page turns a fetched page into sections.
func (s *Source) page(m pageMeta) ingest.Page {
	s.mu.Lock()
	key := cmp.Or(m.SpaceKey, s.spaces[m.SpaceID], s.listed[m.ID])
	if m.Author == "" && m.AuthorID != "" {
		m.Author = s.users[User{AccountID: m.AuthorID}]
	}
	s.mu.Unlock()
	base := cmp.Or(m.Base, s.c.base)
	doc := Doc{
		Title: m.Title, Path: PagePath(key, m.Title), Author: m.Author, Version: strconv.Itoa(m.Version), Modified: m.Modified,
		Anchor: CloudAnchor, UserName: s.userName,
	}
	if m.WebUI != "" {
		doc.URL = strings.TrimRight(base, "/") + m.WebUI
	}
	if s.c.Flavour() == DataCenter {
		doc.Anchor = DataCenterAnchor(m.Title)
	}
	ref := ingest.PageRef{ID: m.ID, Title: m.Title, Path: doc.Path, Version: doc.Version}
	return ingest.Page{PageRef: ref, Sections: doc.SplitStorage(m.Body)}
}
