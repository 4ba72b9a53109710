package confluence

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/ragbot/ragbot/internal/httpretry"
)

// usersBulkMax is how many account ids one users-bulk request carries.
const usersBulkMax = 100

// lookUpUsers finds the display names this batch of pages needs and the
// sync has not asked for yet: the Cloud authors (REST v2 gives account ids
// only) and the users the bodies mention. Cloud asks `POST
// /api/v2/users-bulk` (Confluence Cloud REST API v2, User, 'Create bulk
// user lookup using ids'), 100 ids a request; Data Center asks `GET
// /rest/api/user?key=...` (or `?username=...` for a mention without a key;
// Confluence Data Center REST API, 'Get user') once per user. A user not
// found shows its id. A failed lookup is logged once, leaves the names it
// did not get empty (authors blank, mentions as ids) and stops lookups for
// the rest of the sync: names are worth a request, not a failed sync.
// Only a canceled ctx is returned.
func (s *Source) lookUpUsers(ctx context.Context, metas []pageMeta) error {
	s.mu.Lock()
	var want []User
	seen := map[User]bool{}
	add := func(u User) {
		if _, known := s.users[u]; !known && !seen[u] {
			want = append(want, u)
			seen[u] = true
		}
	}
	cloud := s.c.Flavour() == Cloud
	for _, m := range metas {
		if cloud && m.AuthorID != "" {
			add(User{AccountID: m.AuthorID})
		}
		for _, u := range storageUsers(m.Body) {
			// Cloud knows account ids only; Data Center has none.
			if (cloud && u.AccountID != "") || (!cloud && (u.UserKey != "" || u.Username != "")) {
				add(u)
			}
		}
	}
	failed := s.usersFailed
	s.mu.Unlock()
	if len(want) == 0 || failed {
		return nil
	}
	var err error
	if cloud {
		err = s.usersBulk(ctx, want)
	} else {
		err = s.usersOneByOne(ctx, want)
	}
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		s.c.log.Warn("confluence: could not read user names; authors stay blank and mentions show ids for the rest of this sync", "err", err)
		s.mu.Lock()
		s.usersFailed = true
		s.mu.Unlock()
	}
	return nil
}

// usersBulk asks users-bulk for the names of want (Cloud).
func (s *Source) usersBulk(ctx context.Context, want []User) error {
	for part := range slices.Chunk(want, usersBulkMax) {
		ids := make([]string, len(part))
		for i, u := range part {
			ids[i] = u.AccountID
		}
		body, _ := json.Marshal(map[string][]string{"accountIds": ids})
		data, _, err := s.c.do(ctx, "read user names", http.MethodPost, s.c.base+"/api/v2/users-bulk", body)
		if err != nil {
			return err
		}
		var ans listAnswer[struct {
			AccountID   string `json:"accountId"`
			DisplayName string `json:"displayName"`
			PublicName  string `json:"publicName"`
		}]
		if err := json.Unmarshal(data, &ans); err != nil {
			return fmt.Errorf("confluence: read user names: decode answer: %w", err)
		}
		names := map[string]string{}
		for _, u := range ans.Results {
			names[u.AccountID] = cmp.Or(u.DisplayName, u.PublicName)
		}
		s.mu.Lock()
		for _, u := range part {
			s.users[u] = names[u.AccountID] // asked once a sync, even when unknown
		}
		s.mu.Unlock()
	}
	return nil
}

// usersOneByOne asks /rest/api/user for each of want (Data Center), by
// user key when the mention has one (usernames can change), else by
// username. A 404 is a user not found.
func (s *Source) usersOneByOne(ctx context.Context, want []User) error {
	for _, u := range want {
		q := url.Values{"key": {u.UserKey}}
		if u.UserKey == "" {
			q = url.Values{"username": {u.Username}}
		}
		data, _, err := s.c.do(ctx, "read user "+u.ID(), http.MethodGet, s.c.base+"/rest/api/user?"+q.Encode(), nil)
		var se *httpretry.StatusError
		if errors.As(err, &se) && se.Status == http.StatusNotFound {
			data, err = nil, nil
		}
		if err != nil {
			return err
		}
		var ans struct {
			DisplayName string `json:"displayName"`
		}
		if data != nil {
			if err := json.Unmarshal(data, &ans); err != nil {
				return fmt.Errorf("confluence: read user %s: decode answer: %w", u.ID(), err)
			}
		}
		s.mu.Lock()
		s.users[u] = ans.DisplayName
		s.mu.Unlock()
	}
	return nil
}

// userName is the display name of u found this sync ("" when none).
func (s *Source) userName(u User) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.users[u]
}
