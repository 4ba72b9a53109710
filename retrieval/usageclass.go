package retrieval

import (
	"regexp"
	"strings"
)

// Classes of the sites of a name without a definition (an environment
// variable or a configuration key), in the order a usage answer lists them
// (siteClass).
const (
	classRead    = iota // code that reads it
	classCode           // other code that names it (a constant, a message, a map key)
	classSet            // code that sets it or passes it to another process, a shell assignment
	classMention        // other lines of files that only mention it
)

// siteClass returns the class of site s of a name without a definition,
// c being the name's patterns (newSiteClasses), by the API its line goes
// through: a line of a file that only mentions the name is classMention,
// or classSet for a shell assignment; a line of code is classSet when it
// sets the name, else classRead when it reads it, else classSet when it
// passes it to another process, else classCode. The patterns are per line:
// a JavaScript destructuring "const {\n  X,\n} = process.env" over several
// lines is classCode, still before the setters.
//
// Reads: Go os.Getenv, os.LookupEnv and syscall.Getenv (pkg.go.dev/os,
// pkg.go.dev/syscall) and a config library's Get*("key") (viper's
// GetString, GetInt, ...); Python os.environ[...], os.environ.get,
// os.getenv, "X" in os.environ (docs.python.org/3/library/os.html,
// os.environ and os.getenv); JavaScript process.env.X, process.env["X"],
// const { X } = process.env (nodejs.org/api/process.html, process.env).
//
// Sets: Go os.Setenv, os.Unsetenv and testing's T.Setenv; Python
// os.putenv, os.unsetenv, os.environ[...] = ..., its setdefault, pop and
// update, pytest's monkeypatch.setenv and delenv; JavaScript process.env.X
// = ... and delete process.env.X (assigning or deleting a property of
// process.env changes the process's environment, nodejs.org/api/process.html);
// and what passes it to another process: an assignment to an env-named
// mapping (env["X"] = ..., env.X = ...), a dict or object literal key
// ({"X": ...}, { X: ... }), a "X=value" string (Go's exec.Cmd.Env and
// Python's subprocess env take such pairs or mappings), dict(os.environ,
// X=...). In a shell script, X=value, export X=value.
func siteClass(s site, c siteClasses) int {
	if s.mention {
		if s.chunk.Language == "shell" && c.shell.MatchString(s.text) {
			return classSet
		}
		return classMention
	}
	switch {
	case anyMatch(c.set, s.text):
		return classSet
	case anyMatch(c.read, s.text):
		return classRead
	case anyMatch(c.pass, s.text):
		return classSet
	case (s.chunk.Language == "javascript" || s.chunk.Language == "typescript") && c.jsKey.MatchString(s.text):
		return classSet // an object literal's key: { X: "1" }
	}
	return classCode
}

// siteClasses are siteClass's patterns compiled for one name.
type siteClasses struct {
	set, read, pass []*regexp.Regexp
	shell, jsKey    *regexp.Regexp
}

// newSiteClasses compiles the patterns for name, in any case when it is
// all lower case (as siteMatcher matches it).
func newSiteClasses(name string) siteClasses {
	flags := ""
	if strings.ToLower(name) == name {
		flags = "(?i)"
	}
	q := regexp.QuoteMeta(name)
	compile := func(ps ...string) []*regexp.Regexp {
		out := make([]*regexp.Regexp, len(ps))
		for i, p := range ps {
			out[i] = regexp.MustCompile(flags + strings.ReplaceAll(p, "X", q))
		}
		return out
	}
	return siteClasses{
		set: compile(setPatterns...), read: compile(readPatterns...), pass: compile(passPatterns...),
		shell: compile(`(?:^|[\s;&|(])(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)*)?X=`)[0],
		jsKey: compile(`(?:^|[{,])\s*X\s*:[^:]`)[0],
	}
}

func anyMatch(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// Patterns of siteClass, "X" standing for the name (newSiteClasses); a
// quote is any of ", ' and `. No other "X" may appear in them.
var (
	// setPatterns set or unset the variable; they are tried first, since
	// an assignment's left side is also a read's shape.
	setPatterns = []string{
		`(?i)\.(?:set|unset|put|del)env\(\s*["'` + "`" + `]X["'` + "`" + `]`,         // os.Setenv, t.Setenv, os.putenv, monkeypatch.setenv
		`environ\s*\[\s*["']X["']\s*\]\s*=[^=]`,                                      // os.environ["X"] = ...
		`environ\.(?:setdefault|pop|update)\(\s*["']X["']`,                           //
		`\bdel\s+\S*environ\s*\[\s*["']X["']`,                                        //
		`process\.env(?:\.X\b|\s*\[\s*["'` + "`" + `]X["'` + "`" + `]\s*\])\s*=[^=]`, // process.env.X = ...
		`\bdelete\s+process\.env`,                                                    //
		`(?i)env\w*\s*\[\s*["'` + "`" + `]X["'` + "`" + `]\s*\]\s*=[^=]`,             // env["X"] = ...
		`(?i)env\w*\.X\s*=[^=]`,                                                      // env.X = ...
	}
	// readPatterns read it.
	readPatterns = []string{
		`\b(?:os|syscall)\.(?:Getenv|LookupEnv)\(\s*"X"`,
		`\.Get[A-Za-z0-9]*\(\s*["'` + "`" + `]X["'` + "`" + `]`, // viper.GetString("key"), cfg.Get("key")
		`\bos\.getenv\(\s*["']X["']`,
		`environ\.get\(\s*["']X["']`,
		`environ\s*\[\s*["']X["']\s*\]`,
		`["']X["']\s+(?:not\s+)?in\s+\S*environ\b`,
		`\.get\(\s*["']X["']`, // config.get("key")
		`process\.env(?:\.X\b|\s*\[\s*["'` + "`" + `]X["'` + "`" + `]\s*\])`,
		`\{[^}]*\bX\b[^}]*\}\s*=\s*process\.env\b`,
		`import\.meta\.env\.X\b`,
	}
	// passPatterns pass it to another process, unless the line reads it.
	passPatterns = []string{
		`["'` + "`" + `]X["'` + "`" + `]\s*:[^:]`, // {"X": ...}
		`["'` + "`" + `]X=`,                       // "X=value"
		`\bdict\([^)]*\bX\s*=[^=]`,                // dict(os.environ, X="1")
	}
)
