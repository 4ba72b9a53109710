package retrieval

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// qualifiedUsage returns the Go qualified name a usage question asks about,
// as typed but for a receiver's parentheses and a leading import path:
// "Policy.Do" for "who calls (*Policy).Do" or "retry.Policy.Do",
// "retry.Do" for "who calls retry.Do"; "" when the name has no qualifier or
// is not Go's (a "::" or "#" qualifier). It is the key of Chunk.Calls,
// compared case-insensitively.
func qualifiedUsage(question string) string {
	q := receiverRe.ReplaceAllString(strings.TrimSpace(question), "$1.")
	for _, re := range usagePatterns {
		m := re.FindStringSubmatch(q)
		if m == nil {
			continue
		}
		n := strings.Trim(m[1], ".:#-")
		if strings.ContainsAny(n, ":#-$") {
			return ""
		}
		parts := strings.Split(n, ".")
		if len(parts) < 2 || slices.Contains(parts, "") {
			return ""
		}
		return strings.Join(parts[len(parts)-2:], ".")
	}
	return ""
}

// preciseUsage answers a usage question about the qualified Go name qual
// ("Policy.Do", "retry.Do") from the type-resolved calls of Go chunks
// (Chunk.Calls): a site is a line whose resolved callee is qual, so
// http.Client.Do and sync.Once.Do are not sites of Policy.Do. typed are the
// chunks whose refs hold qual, named those whose refs hold its last part,
// found (the candidates of today's name match). A Go chunk without
// resolved calls (Chunk.Types not TypesResolved: the module did not
// type-check, or it was indexed before) is matched by name as usage does,
// and the answer says so per source (Usage.ByName). ok is false when no
// candidate or definition is Go code: the question is then answered by
// name alone.
func preciseUsage(question, name, qual string, defs []Hit, typed, named []Hit) (ans Answer, ok bool) {
	defs = preciseDefs(defs, qual)
	isGo := func(c Chunk) bool { return c.Language == "go" || strings.HasSuffix(c.Path, ".go") }
	goDefs := len(defs) > 0 && !slices.ContainsFunc(defs, func(d Hit) bool { return !isGo(d.Chunk) })
	if !slices.ContainsFunc(append(append(slices.Clip(defs), typed...), named...), func(h Hit) bool { return isGo(h.Chunk) }) {
		return Answer{}, false
	}
	exact := slices.ContainsFunc(append(slices.Clip(typed), named...), func(h Hit) bool { return hasCall(h.Chunk, qual, true) })
	match := siteMatcher(defs, name)
	skip := map[string]bool{}
	for _, d := range defs {
		skip[d.ID] = true
	}
	var (
		sites    []site
		resolved bool
		byName   = map[string]string{} // source -> why its Go chunks were matched by name
	)
	for _, h := range append(slices.Clip(typed), named...) {
		c := h.Chunk
		if skip[h.ID] {
			continue
		}
		skip[h.ID] = true
		switch {
		case c.Types == TypesResolved:
			resolved = true
			sites = append(sites, callSites(c, qual, exact)...)
		case !isGo(c) && goDefs:
			// another language cannot call a Go function
		case isGo(c):
			reason := strings.TrimPrefix(c.Types, TypesUnavailable)
			if c.Types == "" {
				reason = "indexed without type resolution; index the source again"
			}
			if _, seen := byName[c.Source]; !seen || strings.Contains(byName[c.Source], "indexed without") {
				byName[c.Source] = reason
			}
			sites = append(sites, chunkSites(c, match, false)...)
		default:
			sites = append(sites, chunkSites(c, match, false)...)
		}
	}
	if len(defs) == 0 && len(sites) == 0 {
		return Answer{}, false
	}
	ans = usageAnswer(question, qual, defs, sites)
	ans.Usage.Resolved = resolved
	for _, src := range mapKeys(byName) {
		ans.Usage.ByName = append(ans.Usage.ByName, fmt.Sprintf("%s (%s)", src, byName[src]))
	}
	return ans, true
}

// preciseDefs keeps the definitions of qual among defs (all of which name
// its last part): the method "Type.Method", or the function "Func" in a
// folder named like the package ("retry.Do": retry/*.go); when none is,
// all of them.
func preciseDefs(defs []Hit, qual string) []Hit {
	pkg, fn, _ := strings.Cut(qual, ".")
	var out []Hit
	for _, d := range defs {
		c := d.Chunk
		if strings.EqualFold(c.Symbol, qual) ||
			strings.EqualFold(c.Symbol, fn) && strings.EqualFold(path.Base(path.Dir(c.Path)), pkg) {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// hasCall reports whether c has a resolved call of qual, in qual's case
// when exact is set, else in any case.
func hasCall(c Chunk, qual string, exact bool) bool {
	return slices.ContainsFunc(c.Calls, func(s string) bool { return callName(s, qual, exact) })
}

func callName(call, qual string, exact bool) bool {
	n, _, _ := strings.Cut(call, "@")
	if exact {
		return n == qual
	}
	return strings.EqualFold(n, qual)
}

// callSites are the lines of c whose resolved calls include qual (see
// hasCall), with their text.
func callSites(c Chunk, qual string, exact bool) []site {
	lines := strings.Split(strings.TrimRight(c.Content, "\n"), "\n")
	var out []site
	for _, call := range c.Calls {
		if !callName(call, qual, exact) {
			continue
		}
		_, at, _ := strings.Cut(call, "@")
		n, err := strconv.Atoi(at)
		i := len(lines) - 1 - (c.EndLine - n) // Content ends at EndLine (chunkSites)
		if err != nil || n < c.StartLine || i < 0 || i >= len(lines) {
			continue
		}
		if len(out) > 0 && out[len(out)-1].line == n {
			continue // two calls of qual on one line
		}
		out = append(out, site{chunk: c, line: n, text: strings.TrimSpace(lines[i])})
	}
	return out
}

// byNameNote is the part of a usage title that says how the sites were
// found when type resolution took part: "" when it did not.
func (u Usage) byNameNote() string {
	switch {
	case u.Resolved && len(u.ByName) == 0:
		return "; callers type-resolved (go/types): only calls of this function"
	case u.Resolved:
		return "; callers type-resolved (go/types), except matched by name: type information unavailable for " + strings.Join(u.ByName, ", ")
	case len(u.ByName) > 0:
		return "; matched by name: type information unavailable for " + strings.Join(u.ByName, ", ")
	}
	return ""
}

func mapKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
