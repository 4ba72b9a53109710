package retrieval

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ragbot/ragbot/internal/humanize"
)

// usageName is an identifier, qualified name, environment variable or
// configuration key as typed, optionally in backticks or with "()".
const usageName = "`?([A-Za-z_$][A-Za-z0-9_$.:#-]*)(?:\\(\\))?`?"

// usageEnd ends a "who calls X" question: X is its last word ("which code
// calls React Native?" names no identifier).
const usageEnd = `\s*[?.!]*\s*$`

// usagePatterns recognise questions about where a name is used, read or
// called, in the words people type, any case: "who calls newStore",
// "what uses X", "callers of foo", "where is retryPolicy used", "where is
// the RAGBOT_TOKEN env var read", "where do we call X", "find usages of
// X". "where is X defined" matches none of them.
var usagePatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)^(?:who|what|which \w+)\s+(?:calls|call|uses|use|reads|invokes|references)\s+(?:the\s+)?` + usageName + usageEnd),
	regexp.MustCompile(`(?i)^(?:find\s+|show\s+|list\s+)?(?:all\s+)?(?:the\s+)?(?:callers|usages|uses|references|call sites|readers)\s+(?:of|for|to)\s+(?:the\s+)?` + usageName + usageEnd),
	regexp.MustCompile(`(?i)^where(?:\s+is|\s+are|'s)\s+(?:the\s+)?` + usageName + `\s+(?:(?:env(?:ironment)?\s+var(?:iable)?|config(?:uration)?\s+key|setting|option|function|method|func|type|class)\s+)?(?:being\s+)?(?:used|called|read|referenced|invoked)(?:\s+(?:anywhere|in \S+|by \S+))?` + usageEnd),
	regexp.MustCompile(`(?i)^where\s+(?:do|does)\s+(?:we|it|the code|anything|anyone)\s+(?:call|use|read)\s+(?:the\s+)?` + usageName + usageEnd),
}

// UsageName returns the name a question asks the uses of (see
// usagePatterns), with a trailing "()", backticks, a Go method's receiver
// parentheses and package qualifiers removed (Analyze, Unqualified), or
// false when it asks something else.
func UsageName(question string) (string, bool) {
	n, ok := askedUsage(question)
	return Unqualified(n), ok // "weaviate.Store.Upsert"
}

// askedUsage returns the name a usage question asks about as typed, with
// a Go method's receiver parentheses made a dot ("(*Store).Upsert" ->
// "Store.Upsert") and a "()" or backticks removed, or false when the
// question matches no usagePatterns.
func askedUsage(question string) (string, bool) {
	q := receiverRe.ReplaceAllString(strings.TrimSpace(question), "$1.")
	for _, re := range usagePatterns {
		if m := re.FindStringSubmatch(q); m != nil {
			return strings.Trim(m[1], ".:#-"), true
		}
	}
	return "", false
}

// UsageLimit is how many chunks using a name a usage answer reads, the
// store's largest query (Query.Limit); the sites in them are all listed.
const UsageLimit = 200

// UsageWithCode is how many call sites a surface shows with their calling
// line as code, after the definitions; the others are citation lines.
const UsageWithCode = 3

// Usage describes a usage answer: Answer.Snippets hold the name's Definitions
// first, then one snippet per site (Sites of them: the line that uses the name,
// cited as path:line with its enclosing symbol), in Groups, each group's sites
// by file: readers in code before tests. For a name without a definition (an
// environment variable or a configuration key) the sites come in classes
// (siteClass), each with code before tests: code that reads it, other code
// that names it, the Sets places that set it or pass it to another process,
// then the Mentions in files that only mention it (compose files, scripts,
// templates, docs).
type Usage struct {
	Name string `json:"name"`
	// Asked is the name as typed when it is not all lower case and no
	// definition has its case: Name is then the definitions' ("newStore"
	// asked, only "NewStore" defined); "" otherwise.
	Asked       string       `json:"asked,omitempty"`
	Definitions int          `json:"definitions"`
	Sites       int          `json:"sites"`
	Files       int          `json:"files"`
	Sets        int          `json:"sets,omitempty"`
	Mentions    int          `json:"mentions,omitempty"`
	Groups      []UsageGroup `json:"groups,omitempty"` // several definitions only
	// Resolved is set when the sites in Go, Python or JavaScript code
	// were found by resolution (Chunk.Calls, precise.go): each calls the
	// asked function itself, not another of its name.
	Resolved bool `json:"resolved,omitempty"`
	// ResolvedBy names what resolved them, sorted: "go/types",
	// "scip-python", "scip-typescript" (Chunk.Types).
	ResolvedBy []string `json:"resolved_by,omitempty"`
	// ByName names the sources and files whose sites were matched by
	// name instead, each source with why: "repo:x a.go, b.go (package
	// example.com/x: undefined: y)", "repo:y lib/a.js (scip-typescript
	// gave these calls no symbol: receiver of unknown type)".
	ByName []string `json:"by_name,omitempty"`
}

// A UsageGroup is a run of sites attributed to one definition: the one
// in the same file, else in the same folder; Definition is its index in
// Answer.Snippets, or -1 for the sites that no single definition claims.
type UsageGroup struct {
	Definition int `json:"definition"`
	Sites      int `json:"sites"`
}

// Title is the line a surface puts above a usage answer: how many places
// use the name, or that no callers are indexed, and how an ambiguous name
// was grouped.
func (u Usage) Title() string {
	var b strings.Builder
	if u.Asked != "" {
		fmt.Fprintf(&b, "no %s; showing %s: ", u.Asked, u.Name)
	}
	switch {
	case u.Sites == 0:
		fmt.Fprintf(&b, "%s: no callers indexed (callers outside the indexed sources, e.g. of an exported API, are not seen)", u.Name)
	case u.Sites == 1:
		fmt.Fprintf(&b, "%s is used in 1 place", u.Name)
	default:
		fmt.Fprintf(&b, "%s is used in %d places in %d %s", u.Name, u.Sites, u.Files, humanize.Noun(u.Files, "file"))
	}
	switch {
	case u.Definitions > 1:
		fmt.Fprintf(&b, "; %d definitions: uses are grouped under the definition in the same file or folder, the others last", u.Definitions)
	case u.Definitions == 0 && u.Sites > u.Sets+u.Mentions && u.Sets+u.Mentions > 0:
		b.WriteString("; code that reads it first")
		if u.Sets > 0 {
			verb := "set"
			if u.Sets == 1 {
				verb = "sets"
			}
			fmt.Fprintf(&b, ", then %d %s that %s it", u.Sets, humanize.Noun(u.Sets, "place"), verb)
		}
		if u.Mentions > 0 {
			fmt.Fprintf(&b, ", then %d %s in other files", u.Mentions, humanize.Noun(u.Mentions, "mention"))
		}
	}
	b.WriteString(u.byNameNote())
	return b.String()
}

// usage answers a usage question about name: its definitions (chunks whose
// symbol names it), then every line of the chunks that use it (Chunk.Refs),
// and, when it has no definition, the lines of other chunks that mention
// it. found is false when nothing defines, uses or mentions it: the
// question is then answered as any other.
func (a *Asker) usage(ctx context.Context, r Request, name string) (ans Answer, found bool, err error) {
	// One round trip: the definitions (BM25 on symbol), the chunks whose
	// refs hold the name or its last part ("Get" of "Store.Get"), and the
	// chunks that mention it, used when nothing defines it.
	users := Query{Text: name, Limit: UsageLimit, Sources: r.Sources, Groups: r.Groups, Branch: r.Branch}
	mentions, defq := users, users
	users.Refs = []string{name, lastPart(name)}
	defq.Properties, defq.Limit = []string{"symbol"}, 50
	qs := []Query{defq, users, mentions}
	qual := qualifiedUsage(r.Question) // "Policy.Do": its type-resolved callers (precise.go)
	if qual != "" {
		typed := users
		typed.Refs = []string{qual}
		qs = append(qs, typed)
	}
	res, err := searchAll(ctx, a.Store, qs)
	if err != nil {
		return Answer{}, false, err
	}
	defs := definitions(res[0], name)
	if qual != "" {
		if ans, ok := preciseUsage(r.Question, name, qual, defs, res[3], res[1]); ok {
			return ans, true, nil
		}
	}
	if len(defs) == 0 {
		name = codeSpelling(res[1], name) // "ragbot_token" asked, "RAGBOT_TOKEN" read
	}
	if len(defs) == 0 && !keyLike(name, r.Question) {
		return Answer{}, false, nil // "which code calls Flask?": not a name of the code
	}
	if len(defs) > 0 {
		res[2] = nil
	}
	match := siteMatcher(defs, name)
	skip := map[string]bool{}
	for _, d := range defs {
		skip[d.ID] = true
	}
	var sites []site
	for i, group := range [][]Hit{res[1], res[2]} {
		for _, h := range group {
			if !skip[h.ID] {
				skip[h.ID] = true
				sites = append(sites, chunkSites(h.Chunk, match, i == 1)...)
			}
		}
	}
	if len(defs) == 0 && (len(sites) == 0 || sites[0].mention) {
		return Answer{}, false, nil // mentions without a definition or a reader in code answer nothing
	}
	return usageAnswer(r.Question, name, defs, sites), true, nil
}

// codeSpelling returns the one spelling that the hits' contents give a name
// typed in lower case, as a whole word, when they give it in one case only
// ("RAGBOT_TOKEN" for "ragbot_token"), else name: a name without a
// definition then reads as the code writes it, so that a question typed in
// lower case is answered as the one typed in the code's case.
func codeSpelling(hits []Hit, name string) string {
	if strings.ToLower(name) != name {
		return name
	}
	word := regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_])(` + regexp.QuoteMeta(name) + `)(?:$|[^A-Za-z0-9_])`)
	found := ""
	for _, h := range hits {
		for _, m := range word.FindAllStringSubmatch(h.Chunk.Content, -1) {
			if found != "" && found != m[1] {
				return name
			}
			found = m[1]
		}
	}
	return cmp.Or(found, name)
}

// keyRe is an environment variable ("RAGBOT_TOKEN") or a dotted
// configuration key ("server.port").
var keyRe = regexp.MustCompile(`^(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+)$`)

// keyLike reports whether a name without a definition is asked about as
// something read: it looks like a key (keyRe) or the question says it is
// read or is an environment variable.
func keyLike(name, question string) bool {
	q := strings.ToLower(question)
	return keyRe.MatchString(name) || strings.Contains(q, " read") || strings.Contains(q, " env")
}

// definitions are the code hits whose symbol names name (definesName),
// keeping only exact-case ones when there are any ("NewStore" asked,
// "newStore" also defined).
func definitions(hits []Hit, name string) []Hit {
	var all, exact []Hit
	for _, h := range hits {
		if h.Chunk.Kind != KindCode || h.Chunk.Ordinal > 0 || !definesName(h.Chunk.Symbol, name) {
			continue
		}
		all = append(all, h)
		if lastPart(h.Chunk.Symbol) == lastPart(name) {
			exact = append(exact, h)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return all
}

// otherCase returns the definitions' names, qualified as name is
// ("NewStore", "NewStore/NEWSTORE", "Store.Get" for "Store.get"), when
// name has an upper-case letter and none of them has its case (definitions
// keeps only exact-case ones when there are any), else "": a name typed
// in lower case is meant in any case.
func otherCase(defs []Hit, name string) string {
	if len(defs) == 0 || strings.ToLower(name) == name || lastPart(defs[0].Chunk.Symbol) == lastPart(name) {
		return ""
	}
	qual, names := strings.TrimSuffix(name, lastPart(name)), []string(nil)
	for _, d := range defs {
		if n := qual + lastPart(d.Chunk.Symbol); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return strings.Join(names, "/")
}

// definesName reports whether symbol ("Store.newStore", "newStore")
// defines name, compared case-insensitively: the whole symbol, or its last
// part when name is not qualified.
func definesName(symbol, name string) bool {
	s, n := strings.ToLower(symbol), strings.ToLower(name)
	return s != "" && (s == n || lastPart(s) == n)
}

// lastPart is a qualified name's last part: "findByEmail" of
// "UserRepository.findByEmail", "UserRepository::findByEmail" or "...#findByEmail".
func lastPart(s string) string {
	if i := strings.LastIndexAny(s, ".:#"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// siteMatcher matches the lines that use the name as a whole word: the
// definitions' exact names, else what was typed, in any case when it was
// typed in lower case. A method asked about with its type ("Redactor.Chunk",
// "(*Store).Upsert") is matched only where it is called through a selector
// (".Chunk(": Go, Python and JavaScript call a method so): without types,
// its bare name also stands for other types' fields and types, and in
// strings.
func siteMatcher(defs []Hit, name string) *regexp.Regexp {
	alts := map[string]bool{}
	for _, d := range defs {
		alts[regexp.QuoteMeta(lastPart(d.Chunk.Symbol))] = true
	}
	flags := ""
	if len(alts) == 0 {
		alts[regexp.QuoteMeta(name)] = true
		if strings.ToLower(name) == name {
			flags = "(?i)"
		}
	}
	names := slices.Sorted(maps.Keys(alts))
	if lastPart(name) != name && len(defs) > 0 && !slices.ContainsFunc(defs, func(d Hit) bool { return lastPart(d.Chunk.Symbol) == d.Chunk.Symbol }) {
		return regexp.MustCompile(`\.(?:` + strings.Join(names, "|") + `)\s*\(`)
	}
	// "$" is a boundary: shell reads X as "$X" or "${X}".
	return regexp.MustCompile(flags + `(?:^|[^A-Za-z0-9_])(?:` + strings.Join(names, "|") + `)(?:$|[^A-Za-z0-9_])`)
}

// A site is one line that uses the name.
type site struct {
	chunk   Chunk
	line    int // the file line
	end     int // the last line cited: line, or for an API operation its EndLine
	text    string
	mention bool // in a chunk that only mentions the name (no Refs of it)
	class   int  // classRead, classCode, classSet or classMention (usageAnswer)
}

// chunkSites returns the lines of c that match, leaving out comments,
// docstrings and imports, numbered from the chunk's StartLine down (see
// Chunk.ContentLines: a later window of a split symbol starts with its
// signature and a "..." line, which are left out). A line of an API
// operation's description, which is not a line of the file, cites the
// operation's lines.
func chunkSites(c Chunk, match *regexp.Regexp, mention bool) []site {
	header, body := c.ContentLines()
	var out []site
	inDoc, inImport := false, false
	for i, l := range append(header, body...) {
		n := c.StartLine + i - len(header)
		t := strings.TrimSpace(l)
		quotes := strings.Count(t, `"""`) + strings.Count(t, `'''`)
		doc := inDoc || strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, `'''`)
		if quotes%2 == 1 {
			inDoc = !inDoc
		}
		imp := inImport || strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "from ")
		if imp { // "from x import (" runs to its ")"
			inImport = (inImport || strings.Contains(t, "(")) && !strings.Contains(t, ")")
		}
		if i < len(header) || doc || imp || isComment(t) || !match.MatchString(l) {
			continue
		}
		s := site{chunk: c, line: n, end: n, text: t, mention: mention}
		if !c.FileLines() {
			s.line, s.end = c.StartLine, c.EndLine
		}
		out = append(out, s)
	}
	return out
}

func isComment(t string) bool {
	return t == "*" || slices.ContainsFunc([]string{"//", "#", "/*", "* ", "--"}, func(p string) bool { return strings.HasPrefix(t, p) })
}

// usageAnswer orders the sites (by group, class, test file, path, line),
// drops repeats of a line (overlapping windows) and builds the answer. The
// class (siteClass) is that of a name without a definition; the sites of a
// defined name are all of one class, classCode.
func usageAnswer(question, name string, defs []Hit, sites []site) Answer {
	group := func(s site) int { return -1 }
	if len(defs) > 1 {
		group = func(s site) int { return claim(defs, s.chunk.Path) }
	}
	if len(defs) == 0 {
		classes := newSiteClasses(name)
		for i := range sites {
			sites[i].class = siteClass(sites[i], classes)
		}
	} else {
		for i := range sites {
			sites[i].class = classCode
		}
	}
	key := func(s site) (int, int, bool, string, int) {
		g := group(s)
		if g < 0 {
			g = len(defs)
		}
		return g, s.class, IsTestPath(s.chunk.Path), s.chunk.Path, s.line
	}
	sort.SliceStable(sites, func(i, j int) bool {
		gi, ci, ti, pi, li := key(sites[i])
		gj, cj, tj, pj, lj := key(sites[j])
		switch {
		case gi != gj:
			return gi < gj
		case ci != cj:
			return ci < cj
		case ti != tj:
			return !ti
		case pi != pj:
			return pi < pj
		}
		return li < lj
	})
	ans := Answer{Question: question, Coverage: Covered, Confidence: Covered.Confidence()}
	u := &Usage{Name: name, Definitions: len(defs)}
	if shown := otherCase(defs, name); shown != "" {
		u.Name, u.Asked = shown, name
	}
	for _, d := range defs {
		ans.Snippets = append(ans.Snippets, NewSnippet(d.Chunk))
	}
	seen, files := map[string]bool{}, map[string]bool{}
	for _, s := range sites {
		at := s.chunk.Source + "|" + s.chunk.Path + fmt.Sprint("|", s.line)
		if seen[at] {
			continue
		}
		seen[at], files[s.chunk.Path] = true, true
		sn := NewSnippet(s.chunk)
		sn.StartLine, sn.EndLine, sn.Text, sn.MoreLines = s.line, s.end, s.text, 0
		if s.end == s.line {
			sn.URL = lineURL(s.chunk, s.line)
		}
		ans.Snippets = append(ans.Snippets, sn)
		u.Sites++
		switch s.class {
		case classSet:
			u.Sets++
		case classMention:
			u.Mentions++
		}
		if g := group(s); len(defs) > 1 && (len(u.Groups) == 0 || u.Groups[len(u.Groups)-1].Definition != g) {
			u.Groups = append(u.Groups, UsageGroup{Definition: g})
		}
		if len(u.Groups) > 0 {
			u.Groups[len(u.Groups)-1].Sites++
		}
	}
	u.Files = len(files)
	ans.Usage = u
	return ans
}

// claim is the index of the one definition a use in file p belongs to:
// the one in the same file, else the one in the same folder; -1 when none
// or several do.
func claim(defs []Hit, p string) int {
	for _, same := range []func(string) bool{
		func(d string) bool { return d == p },
		func(d string) bool { return path.Dir(d) == path.Dir(p) },
	} {
		found := -1
		for i, d := range defs {
			if same(d.Chunk.Path) {
				if found >= 0 {
					return -1
				}
				found = i
			}
		}
		if found >= 0 {
			return found
		}
	}
	return -1
}

// lineURL points a chunk's link at one line when it ends in the usual
// "#L<start>-L<end>" anchor (GitHub, Gitea) or "#L<start>-<end>" (GitLab).
func lineURL(c Chunk, line int) string {
	for _, f := range []string{"#L%d-L%d", "#L%d-%d"} {
		if a := fmt.Sprintf(f, c.StartLine, c.EndLine); strings.HasSuffix(c.URL, a) {
			return strings.TrimSuffix(c.URL, a) + fmt.Sprintf("#L%d", line)
		}
	}
	return c.URL
}
