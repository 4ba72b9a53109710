package embed

import "math"

// The vector arithmetic of the Static embedder and of its model fitting.
// Sums run in float64 and in index order, so results do not depend on
// anything but the inputs.

// unitRow sets dst to the unit vector of v; with a mean, to that of
// unit(v) - mean with its projections on the directions of top removed
// (Postprocess).
func unitRow(dst, v, mean []float32, top [][]float32) {
	n := norm(v)
	if n == 0 {
		clear(dst)
		return
	}
	for j, x := range v {
		dst[j] = float32(float64(x) / n)
	}
	if len(mean) != len(v) {
		return
	}
	for j := range dst {
		dst[j] -= mean[j]
	}
	for _, pc := range top {
		removeProjection(dst, pc)
	}
	if n := norm(dst); n > 0 {
		for j := range dst {
			dst[j] = float32(float64(dst[j]) / n)
		}
	}
}

// removeProjection subtracts from v its projection on the unit vector dir:
// v -= (v·dir) dir.
func removeProjection[T float32 | float64](v []T, dir []float32) {
	var p float64
	for j, x := range v {
		p += float64(x) * float64(dir[j])
	}
	for j := range v {
		v[j] -= T(p * float64(dir[j]))
	}
}

// powerIteration returns the first principal direction, uncentered, of
// rows (d elements each, one after the other): the unit vector u that
// maximises the sum of (row·u)², found by steps multiplications by the
// rows' second-moment matrix from the start u, which it overwrites. The
// same rows and start give the same vector. It returns nil when u becomes
// zero (all rows zero, or u orthogonal to them).
func powerIteration[T float32 | float64](rows []T, d int, u []float64, steps int) []float32 {
	next := make([]float64, d)
	for range steps {
		n := norm64(u)
		if n == 0 {
			return nil
		}
		for j := range u {
			u[j] /= n
		}
		clear(next)
		for off := 0; off < len(rows); off += d {
			r := rows[off : off+d]
			var p float64
			for j, x := range r {
				p += float64(x) * u[j]
			}
			for j, x := range r {
				next[j] += p * float64(x)
			}
		}
		u, next = next, u
	}
	n := norm64(u)
	if n == 0 {
		return nil
	}
	out := make([]float32, d)
	for j, x := range u {
		out[j] = float32(x / n)
	}
	return out
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func norm64(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}
