package retrieval

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
)

// qualifiedUsage returns the Go qualified name a usage question asks about,
// as typed but for a receiver's parentheses and anything before a package
// name: "Policy.Do" for "who calls (*Policy).Do", "retry.Policy.Do" for
// "who calls retry.Policy.Do", "retry.Do" for "who calls retry.Do"; ""
// when the name has no qualifier or is not Go's (a "::" or "#"
// qualifier). It is matched against Chunk.Calls by callMatcher.
func qualifiedUsage(question string) string {
	n, ok := askedUsage(question)
	if !ok || strings.ContainsAny(n, ":#-$") {
		return ""
	}
	parts := strings.Split(n, ".")
	if len(parts) < 2 || slices.Contains(parts, "") {
		return ""
	}
	return strings.Join(parts[max(len(parts)-3, 0):], ".")
}

// preciseUsage answers a usage question about the qualified Go name qual
// ("Policy.Do", "retry.Policy.Do", "retry.Do") from the type-resolved
// calls of Go chunks (Chunk.Calls): a site is a line whose resolved callee
// is qual (callMatcher), so http.Client.Do and sync.Once.Do are not sites
// of Policy.Do. typed are the chunks whose refs hold qual, named those whose
// refs hold its last part, found (the candidates of today's name match). A
// Go chunk without resolved calls (Chunk.Types not TypesResolved: the
// module did not type-check, or it was indexed before) is matched by name
// as usage does, and the answer says so per source (Usage.ByName). ok is
// false when no candidate or definition is Go code: the question is then
// answered by name alone.
func preciseUsage(question, name, qual string, defs []Hit, typed, named []Hit) (ans Answer, ok bool) {
	defs = preciseDefs(defs, qual)
	isGo := func(c Chunk) bool { return c.Language == "go" || strings.HasSuffix(c.Path, ".go") }
	goDefs := len(defs) > 0 && !slices.ContainsFunc(defs, func(d Hit) bool { return !isGo(d.Chunk) })
	cands := append(slices.Clip(typed), named...)
	if !slices.ContainsFunc(append(slices.Clip(defs), cands...), func(h Hit) bool { return isGo(h.Chunk) }) {
		return Answer{}, false
	}
	calls := newCallMatcher(qual, defs, cands)
	match := siteMatcher(defs, name)
	skip := map[string]bool{}
	for _, d := range defs {
		skip[d.ID] = true
	}
	var (
		sites    []site
		resolved bool
		byName   = map[string]*untyped{} // source -> its Go files matched by name, and why
	)
	for _, h := range cands {
		c := h.Chunk
		if skip[h.ID] {
			continue
		}
		skip[h.ID] = true
		switch {
		case c.Types == TypesResolved:
			resolved = true
			sites = append(sites, callSites(c, calls)...)
		case !isGo(c) && goDefs:
			// another language cannot call a Go function
		case isGo(c):
			found := chunkSites(c, match, false)
			if len(found) == 0 {
				continue
			}
			sites = append(sites, found...)
			reason := strings.TrimPrefix(c.Types, TypesUnavailable)
			if c.Types == "" {
				reason = "indexed without type resolution; index the source again"
			}
			un := byName[c.Source]
			if un == nil {
				un = &untyped{reason: reason}
				byName[c.Source] = un
			}
			if !slices.Contains(un.files, c.Path) {
				un.files = append(un.files, c.Path)
			}
		default:
			sites = append(sites, chunkSites(c, match, false)...)
		}
	}
	if len(defs) == 0 && len(sites) == 0 {
		return Answer{}, false
	}
	ans = usageAnswer(question, qual, defs, sites)
	ans.Usage.Resolved = resolved
	for _, src := range slices.Sorted(maps.Keys(byName)) {
		ans.Usage.ByName = append(ans.Usage.ByName, byName[src].describe(src))
	}
	return ans, true
}

// untyped gathers the Go files of one source whose sites were matched by
// name, and the first reason found.
type untyped struct {
	reason string
	files  []string
}

// describe is "repo:x a.go, b.go (reason)", with at most 3 files named.
func (u *untyped) describe(source string) string {
	files := slices.Sorted(slices.Values(u.files))
	if len(files) > 3 {
		files = append(files[:3], fmt.Sprintf("%d more files", len(u.files)-3))
	}
	return fmt.Sprintf("%s %s (%s)", source, strings.Join(files, ", "), u.reason)
}

// preciseDefs keeps the definitions of qual among defs (all of which name
// its last part): for "pkg.Type.Method" the method in package pkg; for
// "A.B", the method B of type A, or the function B of package A (by
// Chunk.Package, else by the folder's name). nil when none is.
func preciseDefs(defs []Hit, qual string) []Hit {
	parts := strings.Split(qual, ".")
	var out []Hit
	for _, d := range defs {
		c := d.Chunk
		pkg := cmp.Or(strings.TrimSuffix(c.Package, "_test"), path.Base(path.Dir(c.Path)))
		var ok bool
		if len(parts) == 3 {
			ok = strings.EqualFold(c.Symbol, parts[1]+"."+parts[2]) && (c.Package == "" || strings.EqualFold(pkg, parts[0]))
		} else {
			ok = strings.EqualFold(c.Symbol, qual) || strings.EqualFold(c.Symbol, parts[1]) && strings.EqualFold(pkg, parts[0])
		}
		if ok {
			out = append(out, d)
		}
	}
	return out
}

// A callMatcher tells whether a resolved call (an entry of Chunk.Calls,
// "retry.Policy.Do@12") is one of the asked function.
type callMatcher struct {
	qual  string
	exact bool            // compare in qual's case (some call has it), else in any case
	pkgs  map[string]bool // for "Type.Method": the packages of its definitions; nil for any
}

// newCallMatcher matches qual in its case when some candidate has a call
// so named, else in any case; "Type.Method" is restricted to the packages
// of the definitions found (Chunk.Package), so that the callers of
// retryablehttp's Client.Do are not net/http's.
func newCallMatcher(qual string, defs, cands []Hit) callMatcher {
	m := callMatcher{qual: qual, exact: true}
	for _, d := range defs {
		if p := strings.TrimSuffix(d.Chunk.Package, "_test"); p != "" {
			if m.pkgs == nil {
				m.pkgs = map[string]bool{}
			}
			m.pkgs[strings.ToLower(p)] = true
		}
	}
	for _, h := range cands {
		if slices.ContainsFunc(h.Chunk.Calls, m.match) {
			return m
		}
	}
	m.exact = false
	return m
}

// match reports whether call, "pkg.Type.Method@line" or "pkg.Func@line",
// is of the asked function: its whole name is qual, or for a method its
// "Type.Method" is, in a package of m.pkgs when there are any.
func (m callMatcher) match(call string) bool {
	n, _, _ := strings.Cut(call, "@")
	eq := strings.EqualFold
	if m.exact {
		eq = func(a, b string) bool { return a == b }
	}
	if eq(n, m.qual) {
		return true
	}
	pkg, tm, _ := strings.Cut(n, ".")
	return strings.Count(n, ".") == 2 && eq(tm, m.qual) && (m.pkgs == nil || m.pkgs[strings.ToLower(pkg)])
}

// callSites are the lines of c with a call m matches, with their text.
func callSites(c Chunk, m callMatcher) []site {
	_, body := c.ContentLines() // body[i] is file line StartLine+i
	var out []site
	for _, call := range c.Calls {
		if !m.match(call) {
			continue
		}
		_, at, _ := strings.Cut(call, "@")
		n, err := strconv.Atoi(at)
		i := n - c.StartLine
		if err != nil || i < 0 || i >= len(body) {
			continue
		}
		if len(out) > 0 && out[len(out)-1].line == n {
			continue // two calls on one line
		}
		out = append(out, site{chunk: c, line: n, text: strings.TrimSpace(body[i])})
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
