package forget

import (
	"testing"

	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// TestGlobMatches: a --path glob takes the files it matches and everything
// under a folder it matches, with or without a trailing slash.
func TestGlobMatches(t *testing.T) {
	tests := []struct {
		glob, path string
		want       bool
	}{
		{"billing", "billing/uploader.go", true},
		{"billing/", "billing/uploader.go", true},
		{"billing/*.go", "billing/uploader.go", true},
		{"**/uploader.go", "billing/uploader.go", true},
		{"uploader.go", "billing/uploader.go", false}, // anchored at the repository root
		{"bill", "billing/uploader.go", false},
	}
	for _, tt := range tests {
		if got := globMatches(tt.glob, tt.path); got != tt.want {
			t.Errorf("globMatches(%q, %q) = %v, want %v", tt.glob, tt.path, got, tt.want)
		}
	}
}

// TestPageMatches: a --page value names a Confluence page by id (in its
// Cloud or Data Center URL) or by its path.
func TestPageMatches(t *testing.T) {
	cloud := weaviate.ChunkRef{Source: "confluence:ops", Path: "OPS/Deploy runbook", URL: "https://acme.atlassian.net/wiki/spaces/OPS/pages/98391/Deploy+runbook#Rollback"}
	dc := weaviate.ChunkRef{Source: "confluence:ops", Path: "OPS/Failover", URL: "https://conf.example.com/pages/viewpage.action?pageId=98392#Steps"}
	code := weaviate.ChunkRef{Source: "repo:x", Path: "OPS/Deploy runbook"}
	for _, tt := range []struct {
		page string
		ref  weaviate.ChunkRef
		want bool
	}{
		{"98391", cloud, true}, {"9839", cloud, false}, {"OPS/Deploy runbook", cloud, true},
		{"98392", dc, true}, {"98391", dc, false}, {"OPS/Deploy runbook", code, false},
	} {
		if got := pageMatches(tt.page, tt.ref); got != tt.want {
			t.Errorf("pageMatches(%q, %s) = %v, want %v", tt.page, tt.ref.URL+tt.ref.Path, got, tt.want)
		}
	}
}
