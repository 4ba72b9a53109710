package ingest

import "testing"

// TestIncludedGlobs: exclude entries without glob characters stay path
// prefixes; globs drop what they match and everything under a matched folder.
func TestIncludedGlobs(t *testing.T) {
	tests := []struct {
		path    string
		exclude []string
		want    bool
	}{
		{"testdata/a.go", []string{"testdata"}, false},
		{"testdatum/a.go", []string{"testdata"}, true},
		{"config/secrets/prod.yml", []string{"config/secrets/*.yml"}, false},
		{"config/secrets/prod.yaml", []string{"config/secrets/*.yml"}, true},
		{"config/secrets/eu/prod.yml", []string{"config/secrets/*.yml"}, true},
		{"config/secrets/eu/prod.yml", []string{"config/secrets/**/*.yml"}, false},
		{"a/b/fixtures/x.json", []string{"**/fixtures/**"}, false},
		{"fixtures/x.json", []string{"**/fixtures"}, false},
		{"a/fixturesque/x.json", []string{"**/fixtures"}, true},
		{"main.go", []string{"*.yml", "docs"}, true},
	}
	for _, tt := range tests {
		if got := included(tt.path, nil, tt.exclude); got != tt.want {
			t.Errorf("included(%q, exclude %q) = %v, want %v", tt.path, tt.exclude, got, tt.want)
		}
	}
}
