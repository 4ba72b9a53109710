// Package humanize writes counts for people: "1 chunk", "1,234 chunks". The
// commands' summaries (index, forget, doctor, eval) print their counts with
// it, so that every count reads alike.
package humanize

import (
	"strconv"
	"strings"
)

// Plural is "1 chunk", "2 chunks", "1,234 chunks": n with thousands
// separators (Comma) and noun with an "s" unless n is 1. noun is a
// singular English noun whose plural adds "s".
func Plural(n int, noun string) string {
	return Comma(n) + " " + Noun(n, noun)
}

// Noun is noun as it follows the count n: with an "s" unless n is 1
// ("1 line", "2 lines" once n is put before it). noun is a singular
// English noun whose plural adds "s".
func Noun(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// Comma renders n with a comma every three digits: 1234 -> "1,234",
// -1234567 -> "-1,234,567".
func Comma(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
