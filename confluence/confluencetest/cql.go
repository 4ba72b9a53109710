package confluencetest

import (
	"fmt"
	"regexp"
	"strings"
)

// CQL the fake understands: clauses joined by AND, each `type = page`,
// `space = "K"`, `space in ("A","B")`, `label = "x"`, `id in (1,2)`,
// `id = 1`, or a parenthesised CQL of those.
var (
	cqlClause = regexp.MustCompile(`^(type|space|label|id)\s*(=|in)\s*(.+)$`)
	cqlValue  = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|([^\s,()"]+)`)
)

func parseCQL(q string) (func(*Page) bool, error) {
	var keeps []func(*Page) bool
	for _, c := range splitAnd(q) {
		c = strings.TrimSpace(c)
		if strings.HasPrefix(c, "(") && strings.HasSuffix(c, ")") {
			k, err := parseCQL(c[1 : len(c)-1])
			if err != nil {
				return nil, err
			}
			keeps = append(keeps, k)
			continue
		}
		m := cqlClause.FindStringSubmatch(c)
		if m == nil {
			return nil, fmt.Errorf("unsupported clause %q", c)
		}
		vals := map[string]bool{}
		for _, v := range cqlValue.FindAllStringSubmatch(m[3], -1) {
			vals[strings.ReplaceAll(v[1]+v[2], `\"`, `"`)] = true
		}
		field := m[1]
		keeps = append(keeps, func(p *Page) bool {
			switch field {
			case "type":
				return vals["page"]
			case "space":
				return vals[p.SpaceKey]
			case "id":
				return vals[p.ID]
			default:
				for _, l := range p.Labels {
					if vals[l] {
						return true
					}
				}
				return false
			}
		})
	}
	return func(p *Page) bool {
		for _, k := range keeps {
			if !k(p) {
				return false
			}
		}
		return true
	}, nil
}

// splitAnd splits q at top-level " AND ", outside quotes and parentheses.
func splitAnd(q string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && strings.HasPrefix(q[i:], " AND "):
			out = append(out, q[start:i])
			start = i + len(" AND ")
			i += len(" AND ") - 1
		}
	}
	return append(out, q[start:])
}
