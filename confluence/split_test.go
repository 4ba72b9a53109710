package confluence

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/confluence/confluencetest"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/confluence/golden")

const fixtures = "../testdata/confluence"

// TestSplitStorageGolden splits each runbook fixture and compares the chunks
// with testdata/confluence/golden/<file>.golden (go test -update rewrites
// them; review the diff like code). Deploy runbook and On-call handbook use
// Cloud anchors, the others Data Center anchors.
func TestSplitStorageGolden(t *testing.T) {
	pages, err := confluencetest.LoadPages(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	// The fixtures' authors are the users their pages mention: by account
	// id on Cloud, by username (their name, lower case, dotted) on Data
	// Center.
	names := map[User]string{}
	for _, p := range pages {
		names[User{AccountID: p.AuthorID}] = p.Author
		names[User{Username: strings.ToLower(strings.ReplaceAll(p.Author, " ", "."))}] = p.Author
	}
	for i, p := range pages {
		t.Run(p.Title, func(t *testing.T) {
			doc := Doc{Title: p.Title, Path: PagePath(p.SpaceKey, p.Title), Author: p.Author, Version: fmt.Sprint(p.Version),
				Modified: p.Modified, URL: "https://acme.atlassian.net/wiki/spaces/OPS/pages/" + p.ID, Anchor: CloudAnchor,
				UserName: func(u User) string { return names[u] }}
			if i%2 == 1 {
				doc.URL, doc.Anchor = "https://conf.example.com/display/OPS/"+strings.ReplaceAll(p.Title, " ", "+"), DataCenterAnchor(p.Title)
			}
			got := renderChunks(doc.SplitStorage(p.Body))
			golden(t, filepath.Join(fixtures, "golden", strings.ReplaceAll(strings.ToLower(p.Title), " ", "-")+".golden"), got)
		})
	}
}

// TestSplitExportGolden splits the HTML export fixture with the same walker.
func TestSplitExportGolden(t *testing.T) {
	src := &ExportSource{Dir: filepath.Join(fixtures, "export")}
	refs, err := src.ListPages(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range refs {
		paths = append(paths, r.Path)
	}
	if diff := cmp.Diff([]string{"OPS/Deploy-runbook_98391.html"}, paths); diff != "" {
		t.Errorf("export pages (-want +got):\n%s", diff)
	}
	var got strings.Builder
	err = src.FetchPages(t.Context(), refs, func(p ingest.Page) error {
		fmt.Fprintf(&got, "page %s %q version %s\n", p.ID, p.Title, p.Version)
		got.WriteString(renderChunks(p.Sections))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join(fixtures, "golden", "export-deploy-runbook.golden"), got.String())
}

// renderChunks prints chunks for a golden file: a header per chunk with
// symbol, ordinal, lines, signature, URL and metadata, then the content.
func renderChunks(cs []retrieval.Chunk) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "=== %s [%d] lines %d-%d\n", c.Symbol, c.Ordinal, c.StartLine, c.EndLine)
		fmt.Fprintf(&b, "path: %s | signature: %q | kind: %s/%s/%s\n", c.Path, c.Signature, c.Kind, c.SymbolKind, c.Language)
		fmt.Fprintf(&b, "url: %s\nauthor: %s | version: %s | modified: %s\n", c.URL, c.Author, c.Version, c.ModifiedAt.Format("2006-01-02T15:04Z07:00"))
		fmt.Fprintf(&b, "---\n%s\n", c.Content)
		if n := strings.Count(c.Content, "\n") + 1; c.Ordinal == 0 && n != c.EndLine-c.StartLine+1 {
			fmt.Fprintf(&b, "!!! %d content lines for a range of %d\n", n, c.EndLine-c.StartLine+1)
		}
	}
	return b.String()
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
