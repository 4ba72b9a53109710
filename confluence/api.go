package confluence

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// pageMeta is a page as listed or fetched, in either API's terms.
type pageMeta struct {
	ID       string
	Title    string
	SpaceKey string // "" from v2, which names spaces by id
	SpaceID  string // v2 only
	Version  int
	Modified time.Time // version.createdAt (v2) or version.when (v1)
	AuthorID string    // v2: the account id of the version's author
	Author   string    // v1: its display name; v2: filled from AuthorID
	WebUI    string    // _links.webui, relative to the site's base
	Base     string    // _links.base of the answer, "" when absent
	Body     string    // storage format, "" when not fetched
}

// v2Page is a page of the Cloud REST v2 API (Confluence Cloud REST API v2,
// 'Get pages in space').
type v2Page struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Title   string `json:"title"`
	SpaceID string `json:"spaceId"`
	Version struct {
		Number    int       `json:"number"`
		AuthorID  string    `json:"authorId"`
		CreatedAt time.Time `json:"createdAt"`
	} `json:"version"`
	Body struct {
		Storage struct {
			Value string `json:"value"`
		} `json:"storage"`
	} `json:"body"`
	Links struct {
		WebUI string `json:"webui"`
	} `json:"_links"`
}

func (p v2Page) meta(base string) pageMeta {
	return pageMeta{ID: p.ID, Title: p.Title, SpaceID: p.SpaceID, Version: p.Version.Number, Modified: p.Version.CreatedAt,
		AuthorID: p.Version.AuthorID, WebUI: p.Links.WebUI, Base: base, Body: p.Body.Storage.Value}
}

// v2Space is a space of the v2 API.
type v2Space struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Name string `json:"name"`
}

// v1Content is a page of the REST v1 API (Confluence Data Center REST API,
// 'Get content', GET /rest/api/content with expand=body.storage,version).
type v1Content struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Status string `json:"status"`
	Title  string `json:"title"`
	Space  struct {
		Key string `json:"key"`
	} `json:"space"`
	Version struct {
		Number int       `json:"number"`
		When   time.Time `json:"when"`
		By     struct {
			DisplayName string `json:"displayName"`
			Username    string `json:"username"`
		} `json:"by"`
	} `json:"version"`
	Body struct {
		Storage struct {
			Value string `json:"value"`
		} `json:"storage"`
	} `json:"body"`
	Links struct {
		WebUI string `json:"webui"`
	} `json:"_links"`
}

func (p v1Content) meta(base string) pageMeta {
	author := cmp.Or(p.Version.By.DisplayName, p.Version.By.Username)
	return pageMeta{ID: p.ID, Title: p.Title, SpaceKey: p.Space.Key, Version: p.Version.Number, Modified: p.Version.When,
		Author: author, WebUI: p.Links.WebUI, Base: base, Body: p.Body.Storage.Value}
}

// listAnswer is the envelope of a list answer in both APIs.
type listAnswer[T any] struct {
	Results []T `json:"results"`
	Links   struct {
		Next string `json:"next"`
		Base string `json:"base"`
	} `json:"_links"`
}

// errStop ends a walk early without an error: the caller has all it wants.
var errStop = errors.New("stop walking")

// maxListRequests stops a pagination that does not end (a server repeating
// its next link): 10,000 requests of 25 results is 250,000 pages.
const maxListRequests = 10000

// walk GETs first and then every _links.next (or the Link header's next),
// calling fn with each answer's results and _links.base. It stops when fn
// returns errStop, when there is no next link, or when a page of results is
// empty (Data Center may send a next link past the end of the results).
// v2 next links are site-relative ("/wiki/api/v2/..."); v1 ones are
// relative to _links.base, which is the configured base. Both are resolved
// against the configured site, never against a host named in an answer, so
// the credentials go nowhere else.
func walk[T any](ctx context.Context, c *Client, op, first string, v2 bool, fn func(results []T, base string) error) error {
	next := first
	seen := map[string]bool{}
	for n := 0; next != ""; n++ {
		if seen[next] || n >= maxListRequests {
			return fmt.Errorf("confluence: %s: pagination does not end (next link %q repeats)", op, next)
		}
		seen[next] = true
		data, hdr, err := c.do(ctx, op, http.MethodGet, next, nil)
		if err != nil {
			return err
		}
		var ans listAnswer[T]
		if err := json.Unmarshal(data, &ans); err != nil {
			return fmt.Errorf("confluence: %s: decode answer: %w", op, err)
		}
		if len(ans.Results) == 0 {
			return nil
		}
		if err := fn(ans.Results, ans.Links.Base); errors.Is(err, errStop) {
			return nil
		} else if err != nil {
			return err
		}
		link := cmp.Or(ans.Links.Next, linkNext(hdr.Get("Link")))
		next = c.resolve(link, v2)
	}
	return nil
}

// resolve makes a next link absolute on the configured site.
func (c *Client) resolve(link string, v2 bool) string {
	switch {
	case link == "":
		return ""
	case strings.HasPrefix(link, "http://") || strings.HasPrefix(link, "https://"):
		// Absolute: keep only its path and query, on our site.
		u, err := url.Parse(link)
		if err != nil {
			return ""
		}
		return c.origin + u.RequestURI()
	case v2:
		return c.origin + "/" + strings.TrimPrefix(link, "/")
	default:
		return c.base + "/" + strings.TrimPrefix(link, "/")
	}
}

var linkNextRe = regexp.MustCompile(`<([^>]+)>\s*;\s*rel="?next"?`)

// linkNext reads the next URL out of a Link header (RFC 8288).
func linkNext(h string) string {
	if m := linkNextRe.FindStringSubmatch(h); m != nil {
		return m[1]
	}
	return ""
}

// serverMessage picks the human message out of an error answer: v1's
// {"message": ...}, v2's {"errors": [{"title", "detail"}]}, or the first
// 300 bytes of the text.
func serverMessage(data []byte) string {
	var v struct {
		Message string `json:"message"`
		Errors  []struct {
			Title  string `json:"title"`
			Detail string `json:"detail"`
		} `json:"errors"`
	}
	msg := ""
	if json.Unmarshal(data, &v) == nil {
		msg = v.Message
		if msg == "" && len(v.Errors) > 0 {
			msg = strings.TrimSpace(v.Errors[0].Title + " " + v.Errors[0].Detail)
		}
	}
	msg = cmp.Or(msg, strings.Join(strings.Fields(string(data)), " "))
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	return msg
}
