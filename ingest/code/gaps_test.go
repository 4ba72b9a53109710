package code

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	sitter "github.com/smacker/go-tree-sitter"
)

func TestGapPatches(t *testing.T) {
	tests := []struct {
		name, path, src string
		want            string // src when nothing is patched
		wantError       bool   // the patched source still has a syntax error
	}{
		{
			name: "go new with values", path: "a.go",
			src:  "package a\n\nvar p, q = new(\"x\"), new(!ok)\n",
			want: "package a\n\nvar p, q = New(\"x\"), New(!ok)\n",
		},
		{
			name: "go new with a type beside one with a value", path: "a.go",
			src:  "package a\n\nfunc f() { _, _ = new([]int), new(g() + 1) }\n",
			want: "package a\n\nfunc f() { _, _ = new([]int), New(g() + 1) }\n",
		},
		{
			name: "go new with types only", path: "a.go",
			src:  "package a\n\nvar p = new(map[string]int)\n",
			want: "package a\n\nvar p = new(map[string]int)\n",
		},
		{
			name: "go shadowed make", path: "a.go",
			src:  "package a\n\nfunc f(make func(int) int) int { return make(8) + make(1-1) }\n",
			want: "package a\n\nfunc f(make func(int) int) int { return Make(8) + Make(1-1) }\n",
		},
		{
			name: "go generic type aliases", path: "a.go",
			src:  "package a\n\ntype A[P any] = G[P]\n\ntype (\n\tB[K comparable] = map[K]B\n\tC = int\n)\n",
			want: "package a\n\ntype A[P any]   G[P]\n\ntype (\n\tB[K comparable]   map[K]B\n\tC = int\n)\n",
		},
		{
			name: "go new beside a real error", path: "a.go",
			src:       "package a\n\nfunc f() {\n\tx := new(\"x\")\n\ty :=\n}\n",
			want:      "package a\n\nfunc f() {\n\tx := New(\"x\")\n\ty :=\n}\n",
			wantError: true,
		},
		{
			name: "tsx bare ampersands", path: "a.tsx",
			src:  "const a = <p>A & B <b>C & D</b></p>;\n",
			want: "const a = <p>A + B <b>C + D</b></p>;\n",
		},
		{
			name: "jsx bare ampersand beside a reference", path: "a.jsx",
			src:  "const a = <p>A &amp; B & C</p>;\n",
			want: "const a = <p>A &amp; B + C</p>;\n",
		},
		{
			name: "jsx ampersand after a tag", path: "a.jsx",
			src:  "const a = <p><b>A</b> & <br/>\n  & B</p>;\n",
			want: "const a = <p><b>A</b> + <br/>\n  + B</p>;\n",
		},
		{
			name: "tsx && after an element is no jsx text", path: "a.tsx",
			src:       "const a = <br/> && <p>a && b</p>;\n",
			want:      "const a = <br/> && <p>a && b</p>;\n",
			wantError: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			p := sitter.NewParser()
			defer p.Close()
			p.SetLanguage(grammar(tt.path))
			tree, err := p.ParseCtx(context.Background(), nil, src)
			if err != nil {
				t.Fatal(err)
			}
			tree, got := patchGaps(p, tree, gapPatches[Language(tt.path)], src)
			defer tree.Close()
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("patched source mismatch (-want +got):\n%s", diff)
			}
			if e := tree.RootNode().HasError(); e != tt.wantError {
				t.Errorf("patched tree HasError() = %v, want %v", e, tt.wantError)
			}
		})
	}
}
