package scipcalls

import (
	"path"
	"strings"
)

// methodName is the Call.Name of a SCIP symbol that names a method or a
// function ("Type.method" or "module.func"), and "" for any other symbol
// (a type, a field, a parameter, a local: "local 3").
//
// A global symbol is "scheme manager package version descriptors", its
// first four parts separated by spaces (a part with a space is
// backquoted, "." is an empty part), and its descriptors each a name
// followed by a suffix: "/" namespace, "#" type, "." term, "()." method
// (with an optional disambiguator inside the parentheses), ":" meta, "!"
// macro, "(name)" parameter, "[name]" type parameter; a name with other
// characters than [A-Za-z0-9_+$-] is backquoted, "“" standing for one
// backquote (SCIP spec, scip.proto, "Symbol"). So
// "scip-python python requests 2.28.1 `requests.sessions`/Session#send()."
// is "Session.send", and
// "scip-typescript npm axios 1.7.9 lib/core/`Axios.js`/Axios#request()."
// "Axios.request"; a function outside any type is named with its module's
// last part, "api.request" for "`requests.api`/request().".
func methodName(symbol string) string {
	if strings.HasPrefix(symbol, "local ") {
		return ""
	}
	rest := symbol
	for range 4 { // scheme, manager, package, version
		var ok bool
		if rest, ok = skipPart(rest); !ok {
			return ""
		}
	}
	descs := descriptors(rest)
	if len(descs) == 0 || descs[len(descs)-1].suffix != '(' {
		return ""
	}
	method := descs[len(descs)-1].name
	for i := len(descs) - 2; i >= 0; i-- {
		switch d := descs[i]; d.suffix {
		case '#':
			return d.name + "." + method
		case '/':
			mod := d.name
			for _, ext := range []string{".py", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"} {
				mod = strings.TrimSuffix(mod, ext)
			}
			if i := strings.LastIndexByte(mod, '.'); i >= 0 {
				mod = mod[i+1:]
			}
			return path.Base(mod) + "." + method
		case '(':
			return "" // a function nested in a function: no name to ask by
		}
	}
	return ""
}

// skipPart drops one space-terminated header part ("`a b`" quoted).
func skipPart(s string) (string, bool) {
	if strings.HasPrefix(s, "`") {
		end := strings.Index(s[1:], "` ")
		if end < 0 {
			return "", false
		}
		return s[end+3:], true
	}
	i := strings.IndexByte(s, ' ')
	if i < 0 {
		return "", false
	}
	return s[i+1:], true
}

// A descriptor is one name of a symbol's path with its kind: '/', '#',
// '.', ':', '!' as written, '(' for a method "name()." and 'p' for a
// parameter or a type parameter.
type descriptor struct {
	name   string
	suffix byte
}

// descriptors splits the descriptor part of a global symbol.
func descriptors(s string) []descriptor {
	var out []descriptor
	for s != "" {
		var name string
		switch s[0] {
		case '(', '[': // parameter or type parameter: "(name)", "[name]"
			end := strings.IndexByte(s, map[byte]byte{'(': ')', '[': ']'}[s[0]])
			if end < 0 {
				return out
			}
			out = append(out, descriptor{name: s[1:end], suffix: 'p'})
			s = s[end+1:]
			continue
		case '`':
			var b strings.Builder
			i := 1
			for i < len(s) {
				if s[i] == '`' {
					if i+1 < len(s) && s[i+1] == '`' {
						b.WriteByte('`')
						i += 2
						continue
					}
					break
				}
				b.WriteByte(s[i])
				i++
			}
			name, s = b.String(), s[min(i+1, len(s)):]
		default:
			i := strings.IndexAny(s, "/#.:!([")
			if i < 0 {
				return out
			}
			name, s = s[:i], s[i:]
		}
		if s == "" {
			return out
		}
		switch s[0] {
		case '(': // method: "(disambiguator)."
			end := strings.Index(s, ").")
			if end < 0 {
				return out
			}
			out = append(out, descriptor{name: name, suffix: '('})
			s = s[end+2:]
		case '/', '#', '.', ':', '!':
			out = append(out, descriptor{name: name, suffix: s[0]})
			s = s[1:]
		default:
			return out
		}
	}
	return out
}
