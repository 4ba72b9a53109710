package openapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMarkDangling checks that only the key of a dangling $ref changes, in
// block and flow YAML and in minified JSON with several refs on a line.
func TestMarkDangling(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		wantRefs       []string
	}{
		{
			name:     "block yaml",
			in:       "a:\n  $ref: '#/b'\nb: {}\nc:\n  $ref: \"#/nope\"\n",
			want:     "a:\n  $ref: '#/b'\nb: {}\nc:\n  x-unresolved-ref: \"#/nope\"\n",
			wantRefs: []string{"#/nope"},
		},
		{
			name:     "flow yaml",
			in:       "a: {$ref: '#/x'}\n",
			want:     "a: {x-unresolved-ref: '#/x'}\n",
			wantRefs: []string{"#/x"},
		},
		{
			name:     "minified json after multibyte text",
			in:       `{"d":"ünïcödé","a":{"$ref":"#/x"},"b":{"$ref":"#/d"},"c":{"$ref":"#/y"}}`,
			want:     `{"d":"ünïcödé","a":{"x-unresolved-ref":"#/x"},"b":{"$ref":"#/d"},"c":{"x-unresolved-ref":"#/y"}}`,
			wantRefs: []string{"#/x", "#/y"},
		},
		{
			name:     "escaped pointer",
			in:       "paths:\n  /a~b/{id}: {}\nx:\n  $ref: '#/paths/~1a~0b~1%7Bid%7D'\n",
			want:     "paths:\n  /a~b/{id}: {}\nx:\n  $ref: '#/paths/~1a~0b~1%7Bid%7D'\n",
			wantRefs: nil,
		},
		{
			name:     "external",
			in:       "x:\n  $ref: 'other.yaml#/a'\n",
			want:     "x:\n  x-unresolved-ref: 'other.yaml#/a'\n",
			wantRefs: []string{"other.yaml#/a"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, refs, ok := markDangling([]byte(tc.in))
			if !ok {
				t.Fatal("markDangling: not ok")
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRefs, refs); diff != "" {
				t.Errorf("refs (-want +got):\n%s", diff)
			}
		})
	}
}
