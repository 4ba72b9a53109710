package corpus

import (
	"regexp"
	"strings"
)

var (
	// roffEscape matches the escapes of groff(7) that carry no words: font
	// changes (\fB, \f(CW, \f[I]), named characters (\(em, \[em]),
	// strings (\*(Aq, \*[x]), sizes and motions (\s-1, \h'..'), \& and \c.
	roffEscape = regexp.MustCompile(`\\(f(\(..|\[[^\]]*\]|.)|\(..|\[[^\]]*\]|\*(\(..|\[[^\]]*\]|.)|s[-+]?\d|[hvwlLoDXNZbx]'[^']*'|[&c|^%:ed0 ])`)
	// roffRequest matches a request line's name: ".TH", ".B", "'\"".
	roffRequest = regexp.MustCompile(`^[.'][ \t]*([A-Za-z]{1,3}|\\")`)
)

// roffDrop are requests whose arguments are not prose (definitions,
// conditionals, spacing, fonts, comments).
var roffDrop = map[string]bool{
	`\"`: true, "de": true, "ds": true, "nr": true, "if": true, "ie": true, "el": true, "so": true,
	"ft": true, "ps": true, "sp": true, "in": true, "ti": true, "ta": true, "ne": true, "na": true,
	"nh": true, "hy": true, "ad": true, "br": true, "fi": true, "nf": true, "ll": true, "TH": true,
	"PD": true, "RS": true, "RE": true, "rr": true, "rm": true, "als": true, "ig": true, "tr": true,
}

// StripRoff returns the words of a man page: text lines as they are and
// the arguments of formatting macros (.SH NAME, .B word, .BR a b, .TP
// lines, .IP "item"), without requests that carry no prose (definitions,
// conditionals, spacing, comments) and without escapes. It is a reading
// aid for training, not a roff renderer: tables and equations come out as
// their cell text.
func StripRoff(src string) string {
	var b strings.Builder
	for _, line := range strings.Split(src, "\n") {
		if m := roffRequest.FindStringSubmatch(line); m != nil {
			name := m[1]
			if roffDrop[name] || strings.HasPrefix(line[len(m[0]):], "\\\"") {
				continue
			}
			line = strings.TrimSpace(line[len(m[0]):])
			if name == "SH" || name == "SS" {
				b.WriteByte('\n') // a section heading starts a paragraph
			}
			line = strings.ReplaceAll(line, `"`, "")
		} else if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			continue
		}
		line = strings.ReplaceAll(line, `\-`, "-")
		line = strings.ReplaceAll(line, `\e`, "")
		line = roffEscape.ReplaceAllString(line, "")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}
