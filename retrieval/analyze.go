package retrieval

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Analysis is what a question names explicitly, found by shape alone.
type Analysis struct {
	// Identifiers are code names: camelCase, PascalCase, snake_case,
	// SCREAMING_CASE and dotted Type.method tokens (e.g. "Silences.Set",
	// "group_wait", "findByEmail"), as written.
	Identifiers []string
	// Paths are file paths or file names ("cli/silence_import.go", "main.go"),
	// or a trace's absolute ones ("/home/ci/src/shop/orders/service.go",
	// "/root/go/pkg/mod/github.com/x/y@v1.2.0/z.go"; see OutsidePath).
	Paths []string
	// Literals are quoted strings, CLI flags (without their dashes: code
	// declares "cluster.settle-timeout", docs write --cluster.settle-timeout)
	// and env-var-like tokens, to be found verbatim in content
	// ("group_interval cannot be zero", "cluster.settle-timeout",
	// "XDG_CONFIG_DIRS").
	Literals []string
	// Plain are the question's other words, as written, each once: not
	// identifiers, paths, literals, flags or the endpoint ("where", "send",
	// "alerts", "rabbitmq", "SAML", "isn't"). A plain word that is no everyday
	// English and that no indexed chunk holds names something the sources
	// lack, whatever its case (see absence.go).
	Plain []string
	// Lines are the line numbers named with a path, as compilers, linters
	// and stack traces print a place ("store.go:230", "store.go:230:7",
	// Python's `File "store.py", line 230`), 1-based.
	Lines []int
	// Trace is set when the question holds a frame of a pasted stack
	// trace: a place at an absolute path, a Python or JVM frame, or a Go
	// frame with its import path. A trace names the runtime's and
	// libraries' frames beside the asker's, so it is answered by a chunk of
	// one of its files, and its other names and words refuse nothing
	// (Asker.assess).
	Trace bool
	// CrashPath and CrashLine are a trace's innermost frame, where it
	// failed: the first place a Go, Java or JavaScript trace prints, the
	// last frame of a Python traceback ("most recent call last"); "" and 0
	// without a trace.
	CrashPath string
	CrashLine int
	// Endpoint is "METHOD /path" when the question names an HTTP operation.
	Endpoint string
	// Words is the number of plain words (not identifiers, paths or
	// literals; names count as words).
	Words int
}

var (
	ellipsisRe = regexp.MustCompile(`\.\.\.+|…`)
	// placeRe is a place in a file as compilers, linters and Go's stack
	// traces print it: "path:line" or "path:line:column".
	placeRe = regexp.MustCompile(`^(.+?):([0-9]{1,7})(?::[0-9]{1,5})?$`)
	// pyFrameRe is a frame of a Python traceback, `File "PATH", line N`
	// (Python docs, the traceback module), in any case.
	pyFrameRe = regexp.MustCompile(`(?i)File "([^"]{1,500})", line ([0-9]{1,7})`)
	// javaFrameRe is a frame of a JVM stack trace, "at pkg.Class.method(File.java:12)"
	// (Java SE docs, Throwable.printStackTrace): the file is named without
	// its folder.
	javaFrameRe = regexp.MustCompile(`\bat\s+[\w$.<>/]+\(([\w$.\-]+):([0-9]{1,7})\)`)
	// receiverRe is the receiver of a Go method as the runtime, panics and
	// pprof print it: "(*Store).Upsert", "weaviate.(*Store).Upsert" (the
	// Go spec, "Method expressions").
	receiverRe = regexp.MustCompile(`\(\*?([A-Za-z_]\w*)\)\.`)
	// quotedRe: a single quote opens and closes a literal only outside a
	// word, so the apostrophes of "I'm" and "server's" quote nothing.
	quotedRe   = regexp.MustCompile("\"([^\"]{3,200})\"|(?:^|[^\\pL\\pN])'([^']{3,200})'(?:[^\\pL\\pN]|$)|`([^`]{2,200})`|“([^”]{3,200})”")
	endpointRe = regexp.MustCompile(`(?i)\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/[^\s?"'` + "`" + `]*)`)
	flagRe     = regexp.MustCompile(`^--?[a-zA-Z][\w.-]*[\w]$`)
	// pathRe: "@" and "+" stand in folder names of module caches and
	// installs ("x/y@v1.2.0/z.go", "urllib3-1.26+dfsg/").
	pathRe = regexp.MustCompile(`^[\w.\-/@+]*[\w-]\.(go|py|js|jsx|ts|tsx|java|kt|rb|rs|c|h|cc|cpp|cs|php|swift|scala|md|yaml|yml|json|toml|proto|sql|sh|html|css|elm|tmpl)$`)
)

// IsName reports whether a word names code or a file as Analyze recognises
// them: an identifier shape (camelCase, snake_case, Dotted.Name, ALL_CAPS_1)
// or a file path with a known source or doc extension.
func IsName(w string) bool { return isIdentifier(w) || pathRe.MatchString(w) }

// Identifier shapes: a lower-to-upper case change, an inner underscore, a
// dot between names, or an all-caps word with an underscore or digits.
func isIdentifier(tok string) bool {
	if len(tok) < 3 || strings.ContainsAny(tok, "/") {
		return false
	}
	hasLower, hasUpper, camel := false, false, false
	var prev rune
	for _, r := range tok {
		switch {
		case r >= 'a' && r <= 'z':
			hasLower = true
		case r >= 'A' && r <= 'Z':
			hasUpper = true
			// a lower-to-upper change inside one word: "findByEmail", not
			// the hyphenated "non-English"
			if prev >= 'a' && prev <= 'z' || prev >= '0' && prev <= '9' && hasLower {
				camel = true
			}
		}
		prev = r
	}
	inner := strings.Trim(tok, "_.")
	return camel || strings.Contains(inner, "_") && (hasLower || hasUpper) ||
		strings.Contains(inner, ".") && hasUpper || // Type.Method, pkg.Func
		hasUpper && !hasLower && len(tok) >= 4 && strings.ContainsAny(tok, "_0123456789")
}

// Analyze finds identifiers, paths, literals, an endpoint and the plain
// words in a question.
func Analyze(q string) Analysis {
	var a Analysis
	add := func(dst *[]string, s string) {
		if s != "" && !slices.Contains(*dst, s) {
			*dst = append(*dst, s)
		}
	}
	place := func(path, line string, innermost bool) {
		add(&a.Paths, path)
		a.Trace = a.Trace || OutsidePath(path)
		n, err := strconv.Atoi(line)
		if err == nil && !slices.Contains(a.Lines, n) {
			a.Lines = append(a.Lines, n)
		}
		if a.Trace && (innermost || a.CrashPath == "") {
			a.CrashPath, a.CrashLine = path, n
		}
	}
	for _, m := range pyFrameRe.FindAllStringSubmatch(q, -1) {
		if pathRe.MatchString(m[1]) {
			a.Trace = true
			place(m[1], m[2], true)
		}
	}
	q = pyFrameRe.ReplaceAllString(q, " ")
	for _, m := range javaFrameRe.FindAllStringSubmatch(q, -1) {
		if pathRe.MatchString(m[1]) {
			a.Trace = true
			place(m[1], m[2], false)
		}
	}
	for _, m := range quotedRe.FindAllStringSubmatch(q, -1) {
		for _, g := range m[1:] {
			// "... but ... does not advertise": an ellipsis stands for the
			// part the asker left out, so each side is a literal of its own.
			for _, part := range ellipsisRe.Split(g, -1) {
				if part = strings.TrimSpace(part); len(part) >= 3 {
					add(&a.Literals, part)
				}
			}
		}
	}
	if m := endpointRe.FindStringSubmatch(q); m != nil {
		a.Endpoint = strings.ToUpper(m[1]) + " " + m[2]
	}
	var word func(tok string)
	word = func(tok string) {
		switch {
		case tok == "":
		case strings.HasPrefix(tok, "-") && strings.Contains(tok, "="): // --flag=value
			name, val, _ := strings.Cut(strings.TrimLeft(tok, "-"), "=")
			add(&a.Literals, name)
			add(&a.Literals, val)
		case flagRe.MatchString(tok): // --flag: code defines it without the dashes, docs write it with them
			add(&a.Literals, strings.TrimLeft(tok, "-"))
		case pathRe.MatchString(tok):
			add(&a.Paths, tok)
		case placeRe.MatchString(tok) && pathRe.MatchString(placeRe.FindStringSubmatch(tok)[1]):
			m := placeRe.FindStringSubmatch(tok)
			place(m[1], m[2], false)
		case settings(tok) != nil: // key=value, ?key=value&k=v: the code holds the key, the asker's value is theirs
			for _, key := range settings(tok) {
				word(key)
			}
		case isIdentifier(tok):
			add(&a.Identifiers, tok)
			if strings.Contains(tok, "_") { // ENV_VAR, config_key: also found verbatim in docs and tags
				add(&a.Literals, tok)
			}
		case strings.HasPrefix(tok, "/") && a.Endpoint != "":
		default:
			method := a.Endpoint != "" && strings.EqualFold(tok, strings.Fields(a.Endpoint)[0])
			if !method && strings.IndexFunc(tok, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
				add(&a.Plain, tok)
			}
			a.Words++
		}
	}
	for _, f := range strings.Fields(quotedRe.ReplaceAllString(q, " ")) {
		tok, frame := goName(strings.TrimRight(strings.TrimLeft(receiverRe.ReplaceAllString(f, "$1."), "([{\"'`"), ")]}.,;:?!\"'`"))
		a.Trace = a.Trace || frame
		word(tok)
	}
	return a
}

// settingRe is one setting as chat pastes it: a key, "=" or ":", and a
// value without "/" or "=" (so "http://host", "a.go:12" and "x==y" are
// none): "retry_on_timeout=True", "socket_timeout=5", "maxRedirects:0".
var settingRe = regexp.MustCompile(`^([A-Za-z_][\w.\-]*)(?:=|:)([^/=:]+)$`)

// settings returns the keys of tok when it is a setting or a URL's query
// of settings ("?socket_timeout=5&db=2", the WHATWG URL standard's
// application/x-www-form-urlencoded: pairs joined by "&", key and value
// by "="), nil otherwise. The value is the asker's (True, 5, 3600):
// configuration code and docs name the key and read the value from a
// variable, so only the key is a name the sources should hold.
func settings(tok string) []string {
	if strings.HasPrefix(tok, "-") || strings.Contains(tok, "://") {
		return nil // --flag=value is a flag; a URL is no setting
	}
	var keys []string
	for _, pair := range strings.Split(strings.TrimLeft(tok, "?&"), "&") {
		m := settingRe.FindStringSubmatch(pair)
		if m == nil {
			return nil
		}
		keys = append(keys, m[1])
	}
	return keys
}

// OutsidePath reports whether p is a path as a trace prints it rather than
// as a repository names it: absolute, or through a module cache's or an
// install's "name@version" folder. Its repository path is one of its
// trailing sub-paths (PathTails).
func OutsidePath(p string) bool {
	return strings.HasPrefix(p, "/") || strings.Contains(p, "@")
}

// PathTails returns paths with, after each OutsidePath, each of its
// trailing sub-paths, longest first: "/src/shop/orders/service.go" adds
// "src/shop/orders/service.go", "shop/orders/service.go",
// "orders/service.go" and "service.go". A path filter that matches whole
// paths then finds the repository's own.
func PathTails(paths []string) []string {
	out := slices.Clone(paths)
	for _, p := range paths {
		if !OutsidePath(p) {
			continue
		}
		for rest := p; strings.Contains(rest, "/"); {
			_, rest, _ = strings.Cut(rest, "/")
			if rest != "" && !slices.Contains(out, rest) {
				out = append(out, rest)
			}
		}
	}
	return out
}

// goName returns tok written as a Go call or stack frame without its
// arguments and import path: "Upsert(" and "Upsert(ctx," are "Upsert",
// and "github.com/org/repo/weaviate.Store.Upsert(0xc0001," (a goroutine
// trace's frame, its receiver already unwrapped) is "weaviate.Store.Upsert"
// with frame set; other tokens are returned as they are.
func goName(tok string) (name string, frame bool) {
	name, _, call := strings.Cut(tok, "(")
	if !call || name == "" {
		return tok, false
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		if isIdentifier(name[i+1:]) {
			return name[i+1:], true
		}
		return tok, false
	}
	return name, false
}

// Unqualified returns id without the package names that qualify it, the
// all-lower-case segments before its first capitalised one:
// "weaviate.Store.Upsert" is "Store.Upsert", "http.NewRequest" is
// "NewRequest"; an id with none ("Silences.Set", "os.getenv") is returned
// as it is. Go and Python qualify a name by its package or module so (the
// Go spec, "Qualified identifiers"; Python's import system), while the
// chunk's symbol names it within its file.
func Unqualified(id string) string {
	segs := strings.Split(id, ".")
	for i, s := range segs[:len(segs)-1] {
		if s == "" || strings.ToLower(s) != s {
			if i == 0 {
				return id
			}
			return strings.Join(segs[i:], ".")
		}
	}
	if last := segs[len(segs)-1]; len(segs) > 1 && last != "" && strings.ToLower(last[:1]) != last[:1] {
		return last
	}
	return id
}

// IdentifierHeavy reports whether the question is mostly names rather than
// prose: it names something and has at most 5 other words.
func (a Analysis) IdentifierHeavy() bool {
	named := len(a.Identifiers) + len(a.Paths) + len(a.Literals)
	if a.Endpoint != "" {
		named++
	}
	return named > 0 && a.Words <= 5
}
