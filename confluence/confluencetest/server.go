// Package confluencetest is a local Confluence for tests: an httptest server
// speaking the Cloud REST v2 API (cursor pagination, site-relative
// _links.next and a Link header, users-bulk) and the REST v1 API of Data
// Center (start/limit, _links.base with a context path, expand, CQL search,
// user by key or username,
// a limit silently lowered when bodies are expanded, a next link on a full
// last page) over pages held in memory, with basic or bearer auth, counters,
// and injected failures (a 429 with Retry-After, a 503). The wire format
// follows Atlassian's REST references (Confluence Cloud REST API v2, 'Get
// pages in space'; Confluence Data Center REST API, 'Get content' and
// 'Search content by CQL'); ragbot's real client talks to it.
package confluencetest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Flavours, as in package confluence.
const (
	Cloud      = "cloud"
	DataCenter = "datacenter"
)

// Credentials the server accepts: Cloud basic auth with Email:Token, Data
// Center bearer Token.
const (
	Email = "bot@example.com"
	Token = "s3cr3t-api-token-do-not-log"
)

// A Page is one page the server holds.
type Page struct {
	ID       string // numeric string, "98391"
	SpaceKey string // "OPS"
	Title    string
	Version  int
	Author   string // display name
	AuthorID string // Cloud account id
	Modified time.Time
	Labels   []string
	Status   string // "current" (default) or "archived"
	Body     string // storage format
}

// A Space is one space.
type Space struct {
	ID, Key, Name string
}

// Server is the fake Confluence. Its methods are safe for concurrent use.
type Server struct {
	flavour string
	srv     *httptest.Server
	// MaxLimit caps the limit of list requests (v2 allows 250); BodyLimit
	// caps v1 requests that expand bodies, which real servers lower silently.
	MaxLimit, BodyLimit int

	mu       sync.Mutex
	spaces   []Space
	pages    map[string]*Page
	requests int
	paths    []string
	bodies   map[string]int // page id -> bodies served
	fails    map[int]failure
	users    []User
	userFail int // status of every user lookup; 0 serves them
}

type failure struct {
	status     int
	retryAfter string
}

// New starts a server of flavour with the given spaces, closed when the test
// ends.
func New(t testing.TB, flavour string, spaces ...Space) *Server {
	s := &Server{flavour: flavour, MaxLimit: 250, BodyLimit: 50, pages: map[string]*Page{}, bodies: map[string]int{}, fails: map[int]failure{}}
	s.spaces = spaces
	mux := http.NewServeMux()
	if flavour == Cloud {
		mux.HandleFunc("GET /wiki/api/v2/spaces", s.v2Spaces)
		mux.HandleFunc("GET /wiki/api/v2/spaces/{id}/pages", s.v2SpacePages)
		mux.HandleFunc("GET /wiki/api/v2/pages", s.v2Pages)
		mux.HandleFunc("POST /wiki/api/v2/users-bulk", s.v2Users)
		mux.HandleFunc("GET /wiki/rest/api/content/search", s.v1Search)
	} else {
		mux.HandleFunc("GET /confluence/rest/api/content", s.v1Content)
		mux.HandleFunc("GET /confluence/rest/api/content/search", s.v1Search)
		mux.HandleFunc("GET /confluence/rest/api/space/{key}", s.v1Space)
		mux.HandleFunc("GET /confluence/rest/api/user", s.v1User)
	}
	s.srv = httptest.NewServer(s.guard(mux))
	t.Cleanup(s.srv.Close)
	return s
}

// BaseURL is what ragbot is configured with: the root plus "/wiki" (Cloud)
// or the context path "/confluence" (Data Center).
func (s *Server) BaseURL() string {
	if s.flavour == Cloud {
		return s.srv.URL + "/wiki"
	}
	return s.srv.URL + "/confluence"
}

// Put adds a page or replaces it (a version bump, a rename, a move).
func (s *Server) Put(ps ...Page) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range ps {
		if p.Status == "" {
			p.Status = "current"
		}
		s.pages[p.ID] = &p
	}
}

// Get returns the page with id.
func (s *Server) Get(id string) (Page, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pages[id]
	if !ok {
		return Page{}, false
	}
	return *p, true
}

// Delete removes pages.
func (s *Server) Delete(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		delete(s.pages, id)
	}
}

// FailRequest makes the n-th request from now (1 is the next) fail once with
// status and, unless empty, a Retry-After header.
func (s *Server) FailRequest(n, status int, retryAfter string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails[s.requests+n] = failure{status: status, retryAfter: retryAfter}
}

// Counts returns the requests served since the last Reset (failed ones
// included), their paths, and how often each page's body was sent.
func (s *Server) Counts() (requests int, paths []string, bodies map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	bodies = make(map[string]int, len(s.bodies))
	for k, v := range s.bodies {
		bodies[k] = v
	}
	return s.requests, append([]string(nil), s.paths...), bodies
}

// Reset clears the counters.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests, s.paths, s.bodies = 0, nil, map[string]int{}
	s.fails = map[int]failure{}
}

// guard counts the request, checks the credentials and injects failures.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests++
		s.paths = append(s.paths, r.Method+" "+r.URL.RequestURI())
		f, fail := s.fails[s.requests]
		s.mu.Unlock()
		want := "Bearer " + Token
		if s.flavour == Cloud {
			want = "Basic " + base64.StdEncoding.EncodeToString([]byte(Email+":"+Token))
		}
		if r.Header.Get("Authorization") != want {
			writeError(w, http.StatusUnauthorized, "Authentication failed")
			return
		}
		if fail {
			if f.retryAfter != "" {
				w.Header().Set("Retry-After", f.retryAfter)
			}
			writeError(w, f.status, http.StatusText(f.status))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"statusCode": status, "message": msg})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// sorted returns the pages that keep, in id order (numeric).
func (s *Server) sorted(keep func(*Page) bool) []*Page {
	var out []*Page
	for _, p := range s.pages {
		if keep(p) {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := strconv.Atoi(out[i].ID)
		b, _ := strconv.Atoi(out[j].ID)
		return a < b
	})
	return out
}

func (s *Server) space(key string) (Space, bool) {
	for _, sp := range s.spaces {
		if sp.Key == key {
			return sp, true
		}
	}
	return Space{}, false
}

// limit reads the limit parameter: default 25, capped at max.
func limit(q url.Values, max int) int {
	n, err := strconv.Atoi(q.Get("limit"))
	if err != nil || n <= 0 {
		n = 25
	}
	return min(n, max)
}

// window cuts a result list at offset for limit n and says where the next
// page starts (-1 when there is none).
func window[T any](all []T, offset, n int) ([]T, int) {
	if offset >= len(all) {
		return nil, -1
	}
	end := min(offset+n, len(all))
	next := -1
	if end < len(all) {
		next = end
	}
	return all[offset:end], next
}

// v2 cursors are opaque to clients; here they hide an offset.
func cursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(offset)))
}

func offsetOf(c string) int {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(string(b), "offset:"))
	return n
}

// v2Next sets the next link of a v2 answer: `_links.next` rooted at the
// site ("/wiki/api/v2/...") and the same URL in a Link header.
func v2Next(w http.ResponseWriter, r *http.Request, next int, links map[string]string) {
	if next < 0 {
		return
	}
	q := r.URL.Query()
	q.Set("cursor", cursor(next))
	u := r.URL.Path + "?" + q.Encode()
	links["next"] = u
	w.Header().Set("Link", "<"+u+`>; rel="next"`)
}

func (s *Server) v2Spaces(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	var all []map[string]any
	for _, k := range strings.Split(q.Get("keys"), ",") {
		if sp, ok := s.space(k); ok {
			all = append(all, map[string]any{"id": sp.ID, "key": sp.Key, "name": sp.Name, "type": "global", "status": "current",
				"_links": map[string]string{"webui": "/spaces/" + sp.Key}})
		}
	}
	s.mu.Unlock()
	res, next := window(all, offsetOf(q.Get("cursor")), limit(q, s.MaxLimit))
	links := map[string]string{"base": s.BaseURL()}
	v2Next(w, r, next, links)
	writeJSON(w, map[string]any{"results": nonNil(res), "_links": links})
}

func (s *Server) v2SpacePages(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := r.PathValue("id")
	s.mu.Lock()
	key := ""
	for _, sp := range s.spaces {
		if sp.ID == id {
			key = sp.Key
		}
	}
	if key == "" {
		s.mu.Unlock()
		writeJSON404(w)
		return
	}
	status := q.Get("status")
	pages := s.sorted(func(p *Page) bool { return p.SpaceKey == key && (status == "" || p.Status == status) })
	res, next := window(pages, offsetOf(q.Get("cursor")), limit(q, s.MaxLimit))
	out := s.v2JSON(res, q.Get("body-format") == "storage")
	s.mu.Unlock()
	links := map[string]string{"base": s.BaseURL()}
	v2Next(w, r, next, links)
	writeJSON(w, map[string]any{"results": out, "_links": links})
}

func (s *Server) v2Pages(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	want := map[string]bool{}
	for _, v := range q["id"] {
		for _, id := range strings.Split(v, ",") {
			want[id] = true
		}
	}
	s.mu.Lock()
	pages := s.sorted(func(p *Page) bool { return (len(want) == 0 || want[p.ID]) && p.Status == "current" })
	res, next := window(pages, offsetOf(q.Get("cursor")), limit(q, s.MaxLimit))
	out := s.v2JSON(res, q.Get("body-format") == "storage")
	s.mu.Unlock()
	links := map[string]string{"base": s.BaseURL()}
	v2Next(w, r, next, links)
	writeJSON(w, map[string]any{"results": out, "_links": links})
}

// v2JSON renders pages as v2 does; s.mu is held.
func (s *Server) v2JSON(pages []*Page, body bool) []map[string]any {
	out := []map[string]any{}
	for _, p := range pages {
		spaceID := ""
		if sp, ok := s.space(p.SpaceKey); ok {
			spaceID = sp.ID
		}
		m := map[string]any{
			"id": p.ID, "status": p.Status, "title": p.Title, "spaceId": spaceID, "parentType": "page",
			"authorId": p.AuthorID, "createdAt": p.Modified.Add(-24 * time.Hour).Format("2006-01-02T15:04:05.000Z"),
			"version": map[string]any{"number": p.Version, "message": "", "minorEdit": false, "authorId": p.AuthorID,
				"createdAt": p.Modified.UTC().Format("2006-01-02T15:04:05.000Z")},
			"_links": map[string]string{
				"webui":  "/spaces/" + p.SpaceKey + "/pages/" + p.ID + "/" + url.QueryEscape(p.Title),
				"editui": "/pages/resumedraft.action?draftId=" + p.ID, "tinyui": "/x/" + p.ID,
			},
		}
		if body {
			m["body"] = map[string]any{"storage": map[string]string{"representation": "storage", "value": p.Body}}
			s.bodies[p.ID]++
		} else {
			m["body"] = map[string]any{}
		}
		out = append(out, m)
	}
	return out
}

func writeJSON404(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]any{{"status": 404, "code": "NOT_FOUND", "title": "Not Found", "detail": nil}}})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
