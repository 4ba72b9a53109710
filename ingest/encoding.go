package ingest

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// Outcomes of toUTF8, logged with the file's path.
const (
	decodedCP1252  = "decoded as Windows-1252 (ISO-8859-1 text reads the same)"
	replacedBadUTF = "invalid bytes stored as U+FFFD: no single-byte encoding fits"
)

// toUTF8 returns a file's content as UTF-8, and "" when it was UTF-8
// already, or else what was done (decodedCP1252 or replacedBadUTF). Text
// that is not UTF-8 is decoded as Windows-1252 when that is unambiguous:
// every decoded character is printable or a tab, newline, carriage return
// or form feed. Windows-1252 is a superset of the printable part of
// ISO-8859-1 (whose 0x80-0x9F are C1 controls, rejected here), so this
// covers both. Otherwise each run of invalid bytes becomes U+FFFD, as a
// JSON encoder would store it anyway.
func toUTF8(data []byte) ([]byte, string) {
	if utf8.Valid(data) {
		return data, ""
	}
	if dec, err := charmap.Windows1252.NewDecoder().Bytes(data); err == nil && printableText(dec) {
		return dec, decodedCP1252
	}
	return bytes.ToValidUTF8(data, []byte(string(utf8.RuneError))), replacedBadUTF
}

// printableText reports whether s (UTF-8) holds only printable characters
// and the usual white space of text files.
func printableText(s []byte) bool {
	for _, r := range string(s) {
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == '\f':
		case r == utf8.RuneError || !unicode.IsPrint(r) && !unicode.IsSpace(r):
			return false
		}
	}
	return true
}
