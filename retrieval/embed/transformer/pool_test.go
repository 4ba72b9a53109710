package transformer

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPool(t *testing.T) {
	// Two real tokens, (3,0) and (1,4), then a padding token, of dim 2.
	hidden := []float32{3, 0, 1, 4, 100, 100}
	for _, tc := range []struct {
		p    Pooling
		want []float32
	}{
		{MeanPooling, []float32{0.70710677, 0.70710677}}, // mean (2,2), padding left out, to unit length
		{CLSPooling, []float32{1, 0}},                    // the first token (3,0) to unit length
	} {
		got := pool(hidden, 2, 2, tc.p)
		if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
			t.Errorf("pool %v (-want +got):\n%s", tc.p, diff)
		}
	}
}

func TestCombine(t *testing.T) {
	// Text 0 has one row; text 1 has two windows whose unit vectors are
	// (1,0) and (0,1): their mean (0.5,0.5) scaled to unit length.
	rows := []row{{text: 1}, {text: 0}, {text: 1}}
	vecs := [][]float32{{1, 0}, {0.6, 0.8}, {0, 1}}
	got := combine(2, rows, vecs)
	want := [][]float32{{0.6, 0.8}, {0.70710677, 0.70710677}}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
		t.Errorf("combine (-want +got):\n%s", diff)
	}
}
