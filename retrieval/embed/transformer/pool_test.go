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

func TestByText(t *testing.T) {
	// Rows sorted longest first: text 1's row, then text 0's.
	rows := []row{{text: 1}, {text: 0}}
	got := byText(rows, [][]float32{{0, 1}, {1, 0}})
	want := [][]float32{{1, 0}, {0, 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("byText (-want +got):\n%s", diff)
	}
}
