package bot

import (
	"strings"

	"github.com/ragbot/ragbot/retrieval"
)

// Definitions splits snippets, keeping their order, into the definitions of
// ident and the rest. A snippet defines ident when its symbol names it,
// compared case-insensitively with "::" and "#" read as ".": the whole
// symbol ("UserRepository.findByEmail"), its last part ("findByEmail" for
// "UserRepository.findByEmail"), or, when ident is qualified, ident's last
// part ("findByEmail" asked as "UserRepository.findByEmail"). A trailing "()"
// on ident is ignored. A phrase (ident with spaces) defines nothing.
func Definitions(snippets []retrieval.Snippet, ident string) (defs, rest []retrieval.Snippet) {
	id := normSymbol(strings.TrimSuffix(strings.TrimSpace(ident), "()"))
	for _, s := range snippets {
		if id != "" && !strings.ContainsAny(id, " \t") && definesIdent(normSymbol(s.Symbol), id) {
			defs = append(defs, s)
		} else {
			rest = append(rest, s)
		}
	}
	return defs, rest
}

func definesIdent(sym, id string) bool {
	if sym == "" {
		return false
	}
	return sym == id || strings.HasSuffix(sym, "."+id) || strings.HasSuffix(id, "."+sym)
}

func normSymbol(s string) string {
	s = strings.ToLower(s)
	s = strings.ReplaceAll(s, "::", ".")
	return strings.ReplaceAll(s, "#", ".")
}
