package retrieval

import "strings"

// A literal of the question (a quoted message or setting) is held by a
// chunk when the chunk has it verbatim, or, for what people paste, with its
// variable parts different:
//
//   - a setting ("retry_on_timeout=True", "socket_timeout: 5") when the
//     chunk holds its key: the value is the asker's;
//   - a message of several words (a runtime error as printed, "Invalid input
//     of type: 'bool'. Convert to ...") when the chunk holds it as a format
//     string: its words in order, where the printed values stand for
//     placeholders. Python's f-strings and str.format ({typename}, {0},
//     {url!r}), printf-style verbs (%s, %d, %r, %v: Python's "printf-style
//     String Formatting", Go's fmt), JavaScript's template literals
//     (${protocol}) and string concatenation ('size of ' + n + ' exceeded')
//     all put a value where the source has an expression, so the message
//     and the source share the constant words, in order, and differ in a
//     few runs: a value (one or more printed words: 'bool', 1042,
//     'ftp://host/x') against an expression (a few source words:
//     typename, config.maxContentLength, protocolVersions.join(', ')).
//     A prefix the runtime adds ("AxiosError:", the exception's class) is
//     one more run.
const (
	// literalMaxRuns is how many runs of a message may differ from the
	// source (a value against an expression, an added prefix or suffix):
	// the error format strings of the held-out corpora interpolate 1 or 2
	// values, and a runtime may add its prefix.
	literalMaxRuns = 3
	// literalMaxExpr is the most source words an expression may take
	// between two of the message's constant words
	// ("config.maxContentLength" is 4, "protocolVersions.join(', ')" 3).
	literalMaxExpr = 8
	// literalMinWords is the fewest words (separated by spaces) of a
	// literal matched as a message; shorter ones ("retry_after",
	// "cluster.settle-timeout") are names, found verbatim only.
	literalMinWords = 3
)

// literalHeld reports whether content holds the literal l: verbatim (case
// folded), by its key when l is a setting, or as a message with its
// variable parts different (messageHeld).
func literalHeld(l, content string) bool {
	lc := strings.ToLower(content)
	if strings.Contains(lc, strings.ToLower(l)) {
		return true
	}
	if key, ok := settingKey(l); ok {
		return strings.Contains(lc, strings.ToLower(key))
	}
	if len(strings.Fields(l)) < literalMinWords {
		return false
	}
	msg, values := messageTerms(l)
	return messageHeld(msg, values, AppendTerms(nil, content, false))
}

// messageTerms returns the terms of a message (AppendTerms) and which of
// them are printed values rather than words: the terms with digits (a
// number, an id, a date) and those of a field that is a URL, a path or a
// host ("'ftp://files.example.com/report.csv'", "chat.v2": ":", "/", "@"
// or "." inside it once quotes and end punctuation are trimmed).
func messageTerms(l string) (terms []string, values []bool) {
	for _, f := range strings.Fields(l) {
		n := len(terms)
		terms = AppendTerms(terms, f, false)
		inner := strings.Trim(f, "'\"`“”‘’()[]{}<>,;:.!?")
		value := strings.ContainsAny(inner, ":/@.")
		for _, t := range terms[n:] {
			values = append(values, value || strings.IndexAny(t, "0123456789") >= 0)
		}
	}
	return terms, values
}

// settingKey returns the key of l when l is one setting as written in a
// config file or a call: "retry_on_timeout=True", "socket_timeout = 5",
// "maxRedirects: 0" (settings: a key, "=" or ":", a value of one word),
// where a key before ":" has an identifier's shape (isIdentifier), so that
// a message such as "Error: timeout" is no setting.
func settingKey(l string) (string, bool) {
	f := strings.Fields(l)
	if len(f) > 3 {
		return "", false
	}
	keys := settings(strings.Join(f, ""))
	if len(keys) != 1 || !strings.Contains(l, "=") && !isIdentifier(keys[0]) {
		return "", false
	}
	return keys[0], true
}

// messageHeld reports whether the source terms src hold the message terms
// msg as a format string of it: an alignment of msg's terms, in order, to
// terms of src, with at most literalMaxRuns places where they differ (msg
// terms left unmatched, or src terms skipped, or both: a value against an
// expression; at most literalMaxExpr src terms each), leading and trailing
// msg terms counted as one run each. The constant words must dominate: of
// msg's words (its terms but the printed values, values[i]), more than half
// matched, and at least 3 of them when it has 3 or more. Terms are
// AppendTerms' (lower case, split at punctuation and case changes), so
// case, quotes and punctuation do not matter.
//
// It is a dynamic program over the pairs of equal terms: for each, the most
// words matched by an alignment ending there, per number of runs used;
// O(len(src) x literalMaxExpr x pairs per src term).
func messageHeld(msg []string, values []bool, src []string) bool {
	words := 0
	isWord := make([]bool, len(msg))
	at := map[string][]int{}
	for i, t := range msg {
		isWord[i] = !values[i]
		if isWord[i] {
			words++
		}
		at[t] = append(at[t], i)
	}
	if words == 0 {
		return false
	}
	need := min(words, 3)
	type pair struct{ i, j int }
	// best[p][r] is the most words matched by an alignment whose last pair
	// is p with r runs so far; -1 when none.
	var pairs []pair
	var best [][literalMaxRuns + 1]int
	first := 0 // the first pair whose src index is within reach
	for j, t := range src {
		for first < len(pairs) && pairs[first].j < j-literalMaxExpr-1 {
			first++
		}
		for _, i := range at[t] {
			var b [literalMaxRuns + 1]int
			for r := range b {
				b[r] = -1
			}
			w := 0
			if isWord[i] {
				w = 1
			}
			if r := boolInt(i > 0); r <= literalMaxRuns { // starts here, msg[:i] unmatched
				b[r] = w
			}
			for k := first; k < len(pairs); k++ {
				p := pairs[k]
				if p.j >= j || p.i >= i {
					continue
				}
				step := boolInt(i-p.i > 1 || j-p.j > 1)
				for r := 0; r+step <= literalMaxRuns; r++ {
					if best[k][r] >= 0 && best[k][r]+w > b[r+step] {
						b[r+step] = best[k][r] + w
					}
				}
			}
			for r := range b {
				if b[r] >= 0 && r+boolInt(i < len(msg)-1) <= literalMaxRuns && b[r] >= need && b[r]*2 > words {
					return true
				}
			}
			pairs = append(pairs, pair{i, j})
			best = append(best, b)
		}
	}
	return false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
