// Package units formats sizes for the storefront.
package units

// SizeLabel returns the label of a size in bytes, e.g. "12 KB (Größe)".
// Café owners asked for the German label too.
func SizeLabel(n int) string {
	return label(n) + " (Größe)"
}

// Label returns the English label.
func Label(n int) string { return label(n) }
