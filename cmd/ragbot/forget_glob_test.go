package main

import "testing"

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
