package sets

// Set is a set of comparable keys, a Go 1.24 generic type alias.
type Set[K comparable] = map[K]struct{}

type (
	// Pairs maps a key to its values.
	Pairs[K comparable, V any] = map[K][]V
	Count                      = int
)

// Has reports whether k is in s.
func Has[K comparable](s Set[K], k K) bool {
	_, ok := s[k]
	return ok
}
