package confluencetest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// LoadPages reads the runbook fixtures: dir/pages.json lists each page's
// metadata and the file (relative to dir) holding its storage-format body.
func LoadPages(dir string) ([]Page, error) {
	data, err := os.ReadFile(filepath.Join(dir, "pages.json"))
	if err != nil {
		return nil, err
	}
	var list []struct {
		ID       string    `json:"id"`
		Space    string    `json:"space"`
		Title    string    `json:"title"`
		Version  int       `json:"version"`
		Author   string    `json:"author"`
		AuthorID string    `json:"author_id"`
		Modified time.Time `json:"modified"`
		Labels   []string  `json:"labels"`
		File     string    `json:"file"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "pages.json"), err)
	}
	var out []Page
	for _, p := range list {
		body, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p.File)))
		if err != nil {
			return nil, err
		}
		out = append(out, Page{ID: p.ID, SpaceKey: p.Space, Title: p.Title, Version: p.Version, Author: p.Author,
			AuthorID: p.AuthorID, Modified: p.Modified, Labels: p.Labels, Body: string(body)})
	}
	return out, nil
}

// Filler returns n generated pages in space, ids from first on: short
// runbooks with a heading, a table, a list and a code macro each, for
// pagination tests and benchmarks.
func Filler(space string, first, n int) []Page {
	out := make([]Page, n)
	for i := range out {
		id := first + i
		out[i] = Page{
			ID: fmt.Sprint(id), SpaceKey: space, Title: fmt.Sprintf("Service %04d runbook", id), Version: 1,
			Author: "Dana Ops", AuthorID: "557058:dana", Modified: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(id) * time.Minute),
			Labels: []string{"generated"},
			Body: fmt.Sprintf(`<p>Service %04d serves internal traffic.</p>`+
				`<h2>Restart</h2><ol><li><p>Drain the node.</p></li><li><p>Restart:</p>`+
				`<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">bash</ac:parameter>`+
				`<ac:plain-text-body><![CDATA[systemctl restart svc-%04d && curl -fsS localhost:%d/healthz > /dev/null]]></ac:plain-text-body></ac:structured-macro></li></ol>`+
				`<h2>Contacts</h2><table><tbody><tr><th><p>Role</p></th><th><p>Team</p></th></tr><tr><td><p>Owner</p></td><td><p>team-%d</p></td></tr></tbody></table>`+
				`<h3>Escalation</h3><ac:structured-macro ac:name="note"><ac:rich-text-body><p>Page team-%d after 15 minutes.</p></ac:rich-text-body></ac:structured-macro>`,
				id, id, 8000+id%1000, id%17, id%17),
		}
	}
	return out
}
