package ingest

import "testing"

func TestIncluded(t *testing.T) {
	tests := []struct {
		name             string
		path             string
		include, exclude []string
		want             bool
	}{
		{name: "no prefixes", path: "a/b.go", want: true},
		{name: "include the folder", path: "svc/api/h.go", include: []string{"svc"}, want: true},
		{name: "include with a trailing slash", path: "svc/api/h.go", include: []string{"svc/"}, want: true},
		{name: "include the file itself", path: "svc/main.go", include: []string{"svc/main.go"}, want: true},
		{name: "include is by segment, not by string", path: "svc2/h.go", include: []string{"svc"}, want: false},
		{name: "outside every include", path: "docs/a.md", include: []string{"svc", "lib"}, want: false},
		{name: "in the second include", path: "lib/x.go", include: []string{"svc", "lib"}, want: true},
		{name: "empty include prefix is everything", path: "x.go", include: []string{""}, want: true},
		{name: "exclude a folder", path: "svc/gen/x.go", exclude: []string{"svc/gen"}, want: false},
		{name: "exclude is by segment, not by string", path: "svc/generated.go", exclude: []string{"svc/gen"}, want: true},
		{name: "exclude after include", path: "svc/gen/x.go", include: []string{"svc"}, exclude: []string{"svc/gen/"}, want: false},
		{name: "exclude a file", path: "svc/main.go", exclude: []string{"svc/main.go"}, want: false},
		{name: "exclude a sibling", path: "svc/main.go", include: []string{"svc"}, exclude: []string{"lib"}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := included(tt.path, tt.include, tt.exclude); got != tt.want {
				t.Errorf("included(%q, %q, %q) = %v, want %v", tt.path, tt.include, tt.exclude, got, tt.want)
			}
		})
	}
}

func TestLink(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name, template string
		path           string // "" for svc/orders.go
		want           string
	}{
		{name: "no template", template: "", want: ""},
		{
			name:     "github",
			template: "https://github.com/acme/shop/blob/{commit}/{path}#L{start}-L{end}",
			want:     "https://github.com/acme/shop/blob/" + sha + "/svc/orders.go#L12-L40",
		},
		{
			name:     "gitlab",
			template: "https://gitlab.example.com/acme/shop/-/blob/{commit}/{path}#L{start}-{end}",
			want:     "https://gitlab.example.com/acme/shop/-/blob/" + sha + "/svc/orders.go#L12-40",
		},
		{name: "placeholders twice", template: "{path}:{start}:{path}", want: "svc/orders.go:12:svc/orders.go"},
		{name: "no placeholders", template: "https://example.com/", want: "https://example.com/"},
		{
			// A space, "#", "?" or "%" in a path must not end the path or
			// start the fragment or the query of the link.
			name:     "path escaped",
			path:     "docs/Q&A #1?/100% done.md",
			template: "https://github.com/acme/shop/blob/{commit}/{path}#L{start}-L{end}",
			want:     "https://github.com/acme/shop/blob/" + sha + "/docs/Q&A%20%231%3F/100%25%20done.md#L12-L40",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = "svc/orders.go"
			}
			if got := link(tt.template, sha, path, 12, 40); got != tt.want {
				t.Errorf("link(%q, %q) = %q, want %q", tt.template, path, got, tt.want)
			}
		})
	}
}
