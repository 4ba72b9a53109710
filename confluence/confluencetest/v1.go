package confluencetest

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The REST v1 API of Data Center (and Cloud's v1 CQL search): start/limit
// pagination with next links relative to _links.base (Atlassian docs,
// 'Pagination in the REST API').

func (s *Server) v1Space(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	sp, ok := s.space(r.PathValue("key"))
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "No space with key : "+r.PathValue("key"))
		return
	}
	writeJSON(w, map[string]any{"id": sp.ID, "key": sp.Key, "name": sp.Name, "type": "global"})
}

func (s *Server) v1Content(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	key, status := q.Get("spaceKey"), q.Get("status")
	s.mu.Lock()
	pages := s.sorted(func(p *Page) bool {
		return (key == "" || p.SpaceKey == key) && (status == "" || p.Status == status) && (q.Get("type") == "" || q.Get("type") == "page")
	})
	s.mu.Unlock()
	s.v1List(w, r, pages, "/rest/api/content")
}

func (s *Server) v1Search(w http.ResponseWriter, r *http.Request) {
	keep, err := parseCQL(r.URL.Query().Get("cql"))
	if err != nil {
		writeError(w, http.StatusBadRequest, "Could not parse cql : "+err.Error())
		return
	}
	s.mu.Lock()
	pages := s.sorted(func(p *Page) bool { return p.Status == "current" && keep(p) })
	s.mu.Unlock()
	s.v1List(w, r, pages, "/rest/api/content/search")
}

// v1List answers a v1 list with start/limit: the limit is capped (lower when
// bodies are expanded), and a full page always gets a next link, even the
// last one, as Data Center does.
func (s *Server) v1List(w http.ResponseWriter, r *http.Request, pages []*Page, path string) {
	q := r.URL.Query()
	expand := map[string]bool{}
	for _, e := range strings.Split(q.Get("expand"), ",") {
		expand[e] = true
	}
	max := s.MaxLimit
	if expand["body.storage"] {
		max = min(max, s.BodyLimit)
	}
	n := limit(q, max)
	start, _ := strconv.Atoi(q.Get("start"))
	var res []*Page
	if start < len(pages) {
		res = pages[start:min(start+n, len(pages))]
	}
	s.mu.Lock()
	out := []map[string]any{}
	for _, p := range res {
		out = append(out, s.v1JSON(p, expand))
	}
	s.mu.Unlock()
	base := s.BaseURL()
	links := map[string]string{"base": base, "context": strings.TrimPrefix(base, s.srv.URL), "self": base + path + "?" + q.Encode()}
	if len(res) == n {
		nq := url.Values{}
		for k, v := range q {
			nq[k] = v
		}
		nq.Set("start", strconv.Itoa(start+n))
		nq.Set("limit", strconv.Itoa(n))
		links["next"] = path + "?" + nq.Encode()
	}
	writeJSON(w, map[string]any{"results": out, "start": start, "limit": n, "size": len(res), "_links": links})
}

// v1JSON renders a page as v1 does, expanding what was asked; s.mu is held.
func (s *Server) v1JSON(p *Page, expand map[string]bool) map[string]any {
	m := map[string]any{
		"id": p.ID, "type": "page", "status": p.Status, "title": p.Title,
		"_links": map[string]string{"webui": "/display/" + p.SpaceKey + "/" + url.QueryEscape(p.Title),
			"self": s.BaseURL() + "/rest/api/content/" + p.ID},
		"_expandable": map[string]string{},
	}
	if expand["space"] {
		name := p.SpaceKey
		if sp, ok := s.space(p.SpaceKey); ok {
			name = sp.Name
		}
		m["space"] = map[string]any{"key": p.SpaceKey, "name": name, "type": "global"}
	}
	if expand["version"] {
		m["version"] = map[string]any{"number": p.Version, "when": p.Modified.UTC().Format("2006-01-02T15:04:05.000Z"),
			"by": map[string]any{"type": "known", "displayName": p.Author, "username": strings.ToLower(strings.ReplaceAll(p.Author, " ", "."))}}
	}
	if expand["body.storage"] {
		m["body"] = map[string]any{"storage": map[string]string{"value": p.Body, "representation": "storage"}}
		s.bodies[p.ID]++
	}
	return m
}
