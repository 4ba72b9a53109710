package confluence_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/confluence"
	"github.com/ragbot/ragbot/confluence/confluencetest"
	"github.com/ragbot/ragbot/ingest"
)

// TestSourceUserNames syncs pages that mention users, against the fake
// server of each flavour: names come from users-bulk (Cloud) or
// /rest/api/user by key or username (Data Center), once per user and sync;
// an unknown user shows its id; a failing lookup shows ids without failing
// the sync, and is not repeated for every user; the next sync asks again,
// so a rename shows.
func TestSourceUserNames(t *testing.T) {
	profile := func(ref string) string {
		return `<ac:structured-macro ac:name="profile" ac:schema-version="1"><ac:parameter ac:name="user">` + ref + `</ac:parameter></ac:structured-macro>`
	}
	tests := []struct {
		flavour          string
		owner, other     string // ri:user elements: a known user, an unknown one
		ownerID, otherID string // what they show without a name
		wantLookups      int    // user requests of the first sync
	}{
		{
			flavour: confluence.Cloud,
			owner:   `<ri:user ri:account-id="557058:eve" />`, other: `<ri:user ri:account-id="557058:nobody" />`,
			ownerID: "557058:eve", otherID: "557058:nobody",
			wantLookups: 1, // one users-bulk: Eve, nobody and the author; page 1002 adds no one new
		},
		{
			flavour: confluence.DataCenter,
			owner:   `<ri:user ri:userkey="8a7f0001" />`, other: `<ri:user ri:username="nobody" />`,
			ownerID: "8a7f0001", otherID: "nobody",
			wantLookups: 2, // Eve by key, nobody by username; the author's name comes with the page
		},
	}
	for _, tt := range tests {
		t.Run(tt.flavour, func(t *testing.T) {
			srv := confluencetest.New(t, tt.flavour, ops)
			srv.PutUsers(confluencetest.User{AccountID: "557058:eve", UserKey: "8a7f0001", Username: "eve.park", DisplayName: "Eve Park"})
			page := func(id, body string) confluencetest.Page {
				return confluencetest.Page{ID: id, SpaceKey: "OPS", Title: "Page " + id, Version: 1, Author: "Ann Lee", AuthorID: "557058:ann",
					Modified: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), Body: body}
			}
			srv.Put(page("1001", `<p>Owner: <ac:link>`+tt.owner+`</ac:link>, deputy `+profile(tt.other)+`.</p>`),
				page("1002", `<p>Ask `+profile(tt.owner)+`.</p>`))
			client, err := confluence.NewClient(confluence.Options{
				BaseURL: srv.BaseURL(), Flavour: tt.flavour, Email: confluencetest.Email, Token: confluencetest.Token,
				FetchBatch: 1, MaxRetries: 2, Log: testLog(t),
				Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() },
			})
			if err != nil {
				t.Fatal(err)
			}
			src := confluence.NewSource(client, confluence.Scope{Spaces: []string{"OPS"}})

			// sync lists and fetches every page as ingest does, and returns
			// each page's text and the user requests it took.
			sync := func() (texts map[string]string, authors map[string]string, lookups int) {
				t.Helper()
				srv.Reset()
				ctx := context.Background()
				refs, err := src.ListPages(ctx)
				if err != nil {
					t.Fatal(err)
				}
				texts, authors = map[string]string{}, map[string]string{}
				err = src.FetchPages(ctx, refs, func(p ingest.Page) error {
					for _, c := range p.Sections {
						texts[p.ID] += c.Content
						authors[p.ID] = c.Author
					}
					return nil
				})
				if err != nil {
					t.Fatalf("FetchPages: %v", err)
				}
				_, paths, _ := srv.Counts()
				for _, p := range paths {
					if strings.Contains(p, "/users-bulk") || strings.Contains(p, "/rest/api/user?") {
						lookups++
					}
				}
				return texts, authors, lookups
			}

			texts, authors, lookups := sync()
			want := map[string]string{"1001": "Owner: Eve Park, deputy " + tt.otherID + ".", "1002": "Ask Eve Park."}
			if diff := cmp.Diff(want, texts); diff != "" {
				t.Errorf("first sync (-want +got):\n%s", diff)
			}
			if authors["1001"] != "Ann Lee" {
				t.Errorf("author %q, want Ann Lee", authors["1001"])
			}
			if lookups != tt.wantLookups {
				t.Errorf("%d user requests, want %d", lookups, tt.wantLookups)
			}

			srv.PutUsers(confluencetest.User{AccountID: "557058:eve", UserKey: "8a7f0001", Username: "eve.park", DisplayName: "Eve Park-Lee"})
			if texts, _, _ := sync(); texts["1002"] != "Ask Eve Park-Lee." {
				t.Errorf("after a rename, the next sync shows %q, want the new name", texts["1002"])
			}

			srv.FailUsers(500)
			texts, _, lookups = sync()
			want = map[string]string{"1001": "Owner: " + tt.ownerID + ", deputy " + tt.otherID + ".", "1002": "Ask " + tt.ownerID + "."}
			if diff := cmp.Diff(want, texts); diff != "" {
				t.Errorf("with failing lookups (-want +got):\n%s", diff)
			}
			if lookups != 3 {
				t.Errorf("%d user requests with failing lookups, want 3 (one lookup and its 2 retries, then none for the rest of the sync)", lookups)
			}
		})
	}
}
