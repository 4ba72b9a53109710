package confluence

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/ragbot/ragbot/ingest"
)

// Scope says which pages a Source indexes: the current pages of Spaces,
// narrowed to those with Label and matching CQL when set.
type Scope struct {
	Spaces []string // space keys, "OPS"; at least one
	Label  string   // only pages with this label; "" means any
	CQL    string   // an extra CQL condition, ANDed with the rest: `ancestor = 98305`; "" means none
}

// filtered reports whether listing needs CQL search (REST v1) rather than
// the plain space listing.
func (s Scope) filtered() bool { return s.Label != "" || s.CQL != "" }

// cql builds the search for the scope, e.g.
// `type = page AND space in ("OPS","ENG") AND label = "runbook" AND (ancestor = 98305)`.
func (s Scope) cql() string {
	keys := make([]string, len(s.Spaces))
	for i, k := range s.Spaces {
		keys[i] = cqlQuote(k)
	}
	q := "type = page AND space in (" + strings.Join(keys, ",") + ")"
	if s.Label != "" {
		q += " AND label = " + cqlQuote(s.Label)
	}
	if s.CQL != "" {
		q += " AND (" + s.CQL + ")"
	}
	return q
}

func cqlQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// Source is the pages of a Scope on one Confluence site, as an
// ingest.PageSource. Page paths are "<space key>/<page title>" (see
// PagePath). It is safe for concurrent use, though ingest calls it from one
// goroutine.
type Source struct {
	c     *Client
	scope Scope

	mu     sync.Mutex
	spaces map[string]string // space key by v2 space id
	listed map[string]string // space key by page id, from the last listing
	// users holds the display names of this sync's authors (Cloud, by
	// account id) and mentioned users, "" for one not found; usersFailed
	// says a lookup failed this sync, so no more are tried. ListPages, the
	// start of a sync, clears both.
	users       map[User]string
	usersFailed bool
}

var _ ingest.PageSource = (*Source)(nil)

// NewSource returns the pages of scope on c's site.
func NewSource(c *Client, scope Scope) *Source {
	return &Source{c: c, scope: scope, spaces: map[string]string{}, listed: map[string]string{}, users: map[User]string{}}
}

// PagePath is the Chunk.Path of a page: its space key and title, "OPS/Deploy
// runbook". Titles are unique within a space, so the path is unique in a
// source; it is readable in a citation, and it stays put when the page moves
// under another parent (a rename bumps the version anyway). The ancestors
// are left out for that reason.
func PagePath(space, title string) string { return space + "/" + title }

// ListPages lists the current pages in scope with their versions, without
// bodies: on Cloud without a filter, REST v2 per space (cursor pagination);
// otherwise REST v1 (start/limit on Data Center, CQL search for a label or
// CQL filter). A space that does not exist or is not visible is an error, so
// a lost permission never empties the index.
func (s *Source) ListPages(ctx context.Context) ([]ingest.PageRef, error) {
	var metas []pageMeta
	var err error
	switch {
	case s.scope.filtered():
		metas, err = s.listCQL(ctx)
	case s.c.Flavour() == Cloud:
		metas, err = s.listV2(ctx)
	default:
		metas, err = s.listV1(ctx)
	}
	if err != nil {
		return nil, err
	}
	refs := make([]ingest.PageRef, 0, len(metas))
	listed := make(map[string]string, len(metas))
	for _, m := range metas {
		listed[m.ID] = m.SpaceKey
		refs = append(refs, ingest.PageRef{ID: m.ID, Title: m.Title, Path: PagePath(m.SpaceKey, m.Title), Version: strconv.Itoa(m.Version)})
	}
	s.mu.Lock()
	s.listed = listed
	s.users, s.usersFailed = map[User]string{}, false
	s.mu.Unlock()
	return refs, nil
}

// listV2 lists the pages of each space with REST v2.
func (s *Source) listV2(ctx context.Context) ([]pageMeta, error) {
	q := url.Values{"keys": {strings.Join(s.scope.Spaces, ",")}, "limit": {strconv.Itoa(s.c.opt.PageSize)}}
	ids := map[string]string{} // space id by key
	op := "list spaces " + strings.Join(s.scope.Spaces, ",")
	err := walk(ctx, s.c, op, s.c.base+"/api/v2/spaces?"+q.Encode(), true, func(rs []v2Space, _ string) error {
		for _, sp := range rs {
			ids[sp.Key] = sp.ID
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []pageMeta
	for _, key := range s.scope.Spaces {
		id, ok := ids[key]
		if !ok {
			return nil, fmt.Errorf("confluence: space %s: not found, or not visible to the API token", key)
		}
		s.mu.Lock()
		s.spaces[id] = key
		s.mu.Unlock()
		q := url.Values{"status": {"current"}, "limit": {strconv.Itoa(s.c.opt.PageSize)}}
		err := walk(ctx, s.c, "list pages of space "+key, s.c.base+"/api/v2/spaces/"+url.PathEscape(id)+"/pages?"+q.Encode(), true,
			func(rs []v2Page, base string) error {
				for _, p := range rs {
					m := p.meta(base)
					m.SpaceKey = key
					out = append(out, m)
				}
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// listV1 lists the pages of each space with REST v1 content listing.
func (s *Source) listV1(ctx context.Context) ([]pageMeta, error) {
	var out []pageMeta
	for _, key := range s.scope.Spaces {
		q := url.Values{"spaceKey": {key}, "type": {"page"}, "status": {"current"}, "expand": {"version,space"},
			"start": {"0"}, "limit": {strconv.Itoa(s.c.opt.PageSize)}}
		n := 0
		err := walk(ctx, s.c, "list pages of space "+key, s.c.base+"/rest/api/content?"+q.Encode(), false,
			func(rs []v1Content, base string) error {
				for _, p := range rs {
					m := p.meta(base)
					m.SpaceKey = cmp.Or(m.SpaceKey, key)
					out = append(out, m)
					n++
				}
				return nil
			})
		if err != nil {
			return nil, err
		}
		if n == 0 {
			if err := s.checkSpaceV1(ctx, key); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// checkSpaceV1 asks for a space that listed no pages, so that a wrong key
// or a lost permission is an error rather than an empty space.
func (s *Source) checkSpaceV1(ctx context.Context, key string) error {
	_, _, err := s.c.do(ctx, "read space "+key, "GET", s.c.base+"/rest/api/space/"+url.PathEscape(key), nil)
	return err
}

// listCQL lists the pages matching the scope's CQL with REST v1 search.
func (s *Source) listCQL(ctx context.Context) ([]pageMeta, error) {
	q := url.Values{"cql": {s.scope.cql()}, "expand": {"version,space"}, "limit": {strconv.Itoa(min(s.c.opt.PageSize, 100))}}
	var out []pageMeta
	err := walk(ctx, s.c, "search pages", s.c.base+"/rest/api/content/search?"+q.Encode(), false,
		func(rs []v1Content, base string) error {
			for _, p := range rs {
				if p.Type == "" || p.Type == "page" {
					out = append(out, p.meta(base))
				}
			}
			return nil
		})
	return out, err
}

// Settings fingerprints what shapes a Source's chunks besides the pages:
// the splitter version, the site and the flavour (anchors). It goes into
// ingest.PageSet.Settings, so that changing any of them re-splits every page.
// Changing the scope does not: listing finds the pages that came and went.
func Settings(c *Client) string {
	return "confluence splitter v" + SplitterVersion + "|" + c.Flavour() + "|" + c.BaseURL()
}
