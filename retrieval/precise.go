package retrieval

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"regexp"
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

// preciseUsage answers a usage question about the qualified name qual
// ("Policy.Do", "retry.Policy.Do", "retry.Do", "Session.send") from the
// resolved calls of chunks (Chunk.Calls): a site is a line whose resolved
// callee is qual (callMatcher), so http.Client.Do and sync.Once.Do are not
// sites of Policy.Do, nor HTTPAdapter.send of Session.send. typed are the
// chunks whose refs hold qual, named those whose refs hold its last part,
// found (the candidates of today's name match).
//
// Go chunks are resolved by go/types (Chunk.Types TypesResolved). Python
// and JavaScript/TypeScript chunks are resolved by SCIP (Types SCIPPython
// or SCIPTypeScript): their sites are the calls SCIP resolved to qual, plus
// the lines that the name match finds where SCIP gave the method's name no
// symbol (a receiver it could not type: an unresolved call "?.send@12"),
// matched by name; the name-matched lines that SCIP resolved to another
// method are dropped. A chunk that could not be resolved (Types
// "unavailable: ...", or a Go chunk indexed before) is matched by name, and
// the answer says so per source and reason (Usage.ByName). ok is false when
// no candidate or definition is Go code or was resolved or tried by SCIP:
// the question is then answered by name alone, as before.
func preciseUsage(question, name, qual string, defs []Hit, typed, named []Hit) (ans Answer, ok bool) {
	defs = preciseDefs(defs, qual)
	isGo := func(c Chunk) bool { return c.Language == "go" || strings.HasSuffix(c.Path, ".go") }
	precise := func(h Hit) bool { return isGo(h.Chunk) || h.Chunk.Types != "" }
	// One language's function is not called from another's: with every
	// definition in one language family, other chunks are no sites.
	lang := ""
	if len(defs) > 0 {
		lang = langFamily(defs[0].Chunk)
	}
	if slices.ContainsFunc(defs, func(d Hit) bool { return langFamily(d.Chunk) != lang }) {
		lang = ""
	}
	cands := append(slices.Clip(typed), named...)
	if !slices.ContainsFunc(append(slices.Clip(defs), cands...), precise) {
		return Answer{}, false
	}
	calls := newCallMatcher(qual, defs, cands)
	match := siteMatcher(defs, name)
	skip := map[string]bool{}
	for _, d := range defs {
		skip[d.ID] = true
	}
	var (
		sites      []site
		resolvedBy []string
		byName     = map[[2]string]*untyped{} // source, kind -> its files matched by name, and the first reason
	)
	// note records that c's sites were matched by name: kind "" for a
	// chunk not resolved (one entry per source, as for Go before SCIP),
	// else the resolver that gave some calls no symbol.
	note := func(c Chunk, kind, reason string) {
		k := [2]string{c.Source, kind}
		un := byName[k]
		if un == nil {
			un = &untyped{reason: reason}
			byName[k] = un
		}
		if !slices.Contains(un.files, c.Path) {
			un.files = append(un.files, c.Path)
		}
	}
	for _, h := range cands {
		c := h.Chunk
		if skip[h.ID] {
			continue
		}
		skip[h.ID] = true
		switch {
		case lang != "" && langFamily(c) != lang:
			// another language cannot call it
		case c.Types == TypesResolved || IsSCIP(c.Types):
			if !slices.Contains(resolvedBy, c.Types) {
				resolvedBy = append(resolvedBy, c.Types)
			}
			sites = append(sites, callSites(c, calls)...)
			if found := unresolvedSites(c, match, lastPart(qual)); len(found) > 0 {
				sites = append(sites, found...)
				note(c, c.Types, c.Types+" gave these calls no symbol: receiver of unknown type")
			}
		case isGo(c) || strings.HasPrefix(c.Types, TypesUnavailable):
			found := chunkSites(c, match, false)
			if len(found) == 0 {
				continue
			}
			sites = append(sites, found...)
			reason := strings.TrimPrefix(c.Types, TypesUnavailable)
			if c.Types == "" {
				reason = "indexed without type resolution; index the source again"
			}
			note(c, "", reason)
		default:
			sites = append(sites, chunkSites(c, match, false)...)
		}
	}
	if len(defs) == 0 && len(sites) == 0 {
		return Answer{}, false
	}
	ans = usageAnswer(question, qual, defs, sites)
	ans.Usage.Resolved, ans.Usage.ResolvedBy = len(resolvedBy) > 0, slices.Sorted(slices.Values(resolvedBy))
	keys := slices.SortedFunc(maps.Keys(byName), func(a, b [2]string) int {
		return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
	})
	for _, k := range keys {
		ans.Usage.ByName = append(ans.Usage.ByName, byName[k].describe(k[0]))
	}
	return ans, true
}

// unresolvedSites are the lines of c that the name match finds (chunkSites:
// not in comments, docstrings or imports) and where c's resolver gave a
// call of method no symbol (an entry "?.method@line" of c.Calls).
func unresolvedSites(c Chunk, match *regexp.Regexp, method string) []site {
	lines := map[int]bool{}
	for _, call := range c.Calls {
		n, at, _ := strings.Cut(call, "@")
		if m, ok := strings.CutPrefix(n, UnresolvedCall); ok && strings.EqualFold(m, method) {
			if l, err := strconv.Atoi(at); err == nil {
				lines[l] = true
			}
		}
	}
	if len(lines) == 0 {
		return nil
	}
	var out []site
	for _, s := range chunkSites(c, match, false) {
		if lines[s.line] {
			out = append(out, s)
		}
	}
	return out
}

// untyped gathers the files of one source whose sites were matched by
// name for one reason.
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
		out = append(out, site{chunk: c, line: n, end: n, text: strings.TrimSpace(body[i])})
	}
	return out
}

// byNameNote is the part of a usage title that says how the sites were
// found when type resolution took part: "" when it did not.
func (u Usage) byNameNote() string {
	switch {
	case u.Resolved && len(u.ByName) == 0:
		return "; callers type-resolved (" + u.resolvers() + "): only calls of this function"
	case u.Resolved:
		return "; callers type-resolved (" + u.resolvers() + "), except matched by name: type information unavailable for " + strings.Join(u.ByName, ", ")
	case len(u.ByName) > 0:
		return "; matched by name: type information unavailable for " + strings.Join(u.ByName, ", ")
	}
	return ""
}

// resolvers names what resolved the calls: "go/types", "scip-python", ...
func (u Usage) resolvers() string {
	if len(u.ResolvedBy) == 0 {
		return TypesResolved
	}
	return strings.Join(u.ResolvedBy, ", ")
}

// langFamily is the language family of c's file for preciseUsage: "go",
// "python" or "js" (JavaScript and TypeScript, which call each other),
// from its extension; "" for anything else (docs, specs, other languages).
func langFamily(c Chunk) string {
	switch path.Ext(c.Path) {
	case ".go":
		return "go"
	case ".py", ".pyi":
		return "python"
	case ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts":
		return "js"
	}
	return ""
}
