package humanize

import "testing"

// TestPlural: one is singular, other counts plural with thousands commas.
func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 chunks", 1: "1 chunk", 2: "2 chunks", 1234: "1,234 chunks", 1234567: "1,234,567 chunks"} {
		if got := Plural(n, "chunk"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestNoun: the noun alone, singular for one.
func TestNoun(t *testing.T) {
	for n, want := range map[int]string{0: "lines", 1: "line", 2: "lines", 1234: "lines"} {
		if got := Noun(n, "line"); got != want {
			t.Errorf("Noun(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestComma: a comma every three digits from the right, the sign kept.
func TestComma(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567"} {
		if got := Comma(n); got != want {
			t.Errorf("Comma(%d) = %q, want %q", n, got, want)
		}
	}
}
