package confluencetest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// A User is a person the server knows besides the page authors (who are
// known by their AuthorID and Author, and on Data Center by the username
// their display name gives: "Ann Lee" is ann.lee).
type User struct {
	AccountID   string // Cloud
	UserKey     string // Data Center
	Username    string // Data Center
	DisplayName string
}

// PutUsers adds users, or renames them (same AccountID, UserKey or
// Username).
func (s *Server) PutUsers(us ...User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range us {
		replaced := false
		for i, old := range s.users {
			if (u.AccountID != "" && old.AccountID == u.AccountID) || (u.UserKey != "" && old.UserKey == u.UserKey) ||
				(u.Username != "" && old.Username == u.Username) {
				s.users[i], replaced = u, true
			}
		}
		if !replaced {
			s.users = append(s.users, u)
		}
	}
}

// FailUsers makes every user lookup (users-bulk, /rest/api/user) answer
// status until it is called with 0.
func (s *Server) FailUsers(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.userFail = status
}

// known returns the users: PutUsers ones first, then the page authors;
// s.mu is held.
func (s *Server) known() []User {
	out := append([]User(nil), s.users...)
	for _, p := range s.sorted(func(*Page) bool { return true }) {
		out = append(out, User{AccountID: p.AuthorID, Username: strings.ToLower(strings.ReplaceAll(p.Author, " ", ".")), DisplayName: p.Author})
	}
	return out
}

// v2Users answers `POST /wiki/api/v2/users-bulk` (Confluence Cloud REST API
// v2, User, 'Create bulk user lookup using ids'): the users found among
// accountIds, in a MultiEntityResult; unknown ids are left out.
func (s *Server) v2Users(w http.ResponseWriter, r *http.Request) {
	var req struct {
		AccountIDs []string `json:"accountIds"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.AccountIDs) == 0 {
		writeError(w, http.StatusBadRequest, "accountIds is required")
		return
	}
	s.mu.Lock()
	fail, users := s.userFail, s.known()
	s.mu.Unlock()
	if fail != 0 {
		writeError(w, fail, http.StatusText(fail))
		return
	}
	var res []map[string]any
	for _, id := range req.AccountIDs {
		for _, u := range users {
			if u.AccountID == id && id != "" {
				res = append(res, map[string]any{"accountId": id, "accountType": "atlassian", "displayName": u.DisplayName,
					"publicName": u.DisplayName, "email": "", "timeZone": "Etc/UTC", "isExternalCollaborator": false, "accountStatus": "active",
					"profilePicture": map[string]any{"path": "/wiki/aa-avatar/" + id, "width": 48, "height": 48, "isDefault": false}})
				break
			}
		}
	}
	writeJSON(w, map[string]any{"results": nonNil(res), "_links": map[string]string{"base": s.BaseURL()}})
}

// v1User answers `GET /rest/api/user?key=...` or `?username=...` (Confluence
// Data Center REST API, user, 'Get user'): the user as a known Person, or a
// 404 naming the key.
func (s *Server) v1User(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	key, name := q.Get("key"), q.Get("username")
	if key == "" && name == "" {
		writeError(w, http.StatusBadRequest, "Must specify either key or username")
		return
	}
	s.mu.Lock()
	fail, users := s.userFail, s.known()
	s.mu.Unlock()
	if fail != 0 {
		writeError(w, fail, http.StatusText(fail))
		return
	}
	for _, u := range users {
		if (key != "" && u.UserKey == key) || (key == "" && u.Username == name) {
			self := s.BaseURL() + "/rest/api/user?key=" + url.QueryEscape(u.UserKey)
			writeJSON(w, map[string]any{"type": "known", "username": u.Username, "userKey": u.UserKey, "displayName": u.DisplayName,
				"profilePicture": map[string]any{"path": "/confluence/images/icons/profilepics/default.svg", "width": 48, "height": 48, "isDefault": true},
				"_links":         map[string]string{"base": s.BaseURL(), "context": "/confluence", "self": self},
				"_expandable":    map[string]string{"status": ""}})
			return
		}
	}
	what := "key: " + key
	if key == "" {
		what = "username: " + name
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_ = json.NewEncoder(w).Encode(map[string]any{"statusCode": 404, "message": "No user found with " + what, "reason": "Not Found",
		"data": map[string]any{"authorized": false, "valid": true, "errors": []any{}, "successful": false}})
}
