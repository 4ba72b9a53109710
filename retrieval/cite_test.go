package retrieval

import "testing"

func TestSnippetLabel(t *testing.T) {
	cite := func(source, path string, start, end int) Citation {
		return Citation{Source: source, Path: path, StartLine: start, EndLine: end}
	}
	tests := []struct {
		name string
		s    Snippet
		want string
	}{
		{"code", Snippet{Citation: cite("repo:payments", "internal/retry.go", 10, 24), Kind: KindCode}, "internal/retry.go:10-24"},
		{"doc of a markdown folder", Snippet{Citation: cite("docs:handbook", "docs/README.md", 10, 24), Kind: KindDoc},
			"handbook: docs/README.md:10-24"},
		{"doc of a git source", Snippet{Citation: cite("repo:payments", "README.md", 1, 9), Kind: KindDoc}, "payments: README.md:1-9"},
		{"focused", Snippet{Citation: cite("repo:svc", "svc/reconcile.go", 1, 120), Kind: KindCode, ShownStart: 62, ShownEnd: 90},
			"svc/reconcile.go:62-90 of 1-120"},
		{"doc without source", Snippet{Citation: cite("", "README.md", 1, 2), Kind: KindDoc}, "README.md:1-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.Label(); got != tt.want {
				t.Errorf("Label() = %q, want %q", got, tt.want)
			}
		})
	}
}
