package main

import (
	"regexp"
	"strings"
)

// docComment returns the doc comment of a code section as plain lines
// (comment markers removed), or "" when it has none. A chunk starts at its
// doc comment (Go, JavaScript, TypeScript: the comment block above the
// declaration) or at its first decorator (Python: the docstring is the
// first statement of the body).
func docComment(s Section) string {
	switch s.Language {
	case "go", "javascript", "typescript", "tsx", "java":
		return leadingComment(s.Content)
	case "python":
		return docstring(s.Content)
	}
	return ""
}

// leadingComment returns the comment lines before the first line of code:
// "//" lines and "/* */" or "/** */" blocks, with their markers and each
// block line's leading "*" removed. Directives (//go:build, //nolint,
// // +build, eslint and istanbul pragmas) are dropped.
func leadingComment(content string) string {
	var out []string
	inBlock := false
	for _, line := range strings.Split(content, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case inBlock:
			end := strings.Contains(t, "*/")
			t, _, _ = strings.Cut(t, "*/")
			t = strings.TrimSpace(strings.TrimPrefix(t, "*"))
			out = append(out, t)
			inBlock = !end
		case strings.HasPrefix(t, "/*"):
			t = strings.TrimLeft(strings.TrimPrefix(t, "/*"), "*")
			end := strings.Contains(t, "*/")
			t, _, _ = strings.Cut(t, "*/")
			out = append(out, strings.TrimSpace(t))
			inBlock = !end
		case strings.HasPrefix(t, "//"):
			if isDirective(t) {
				continue
			}
			out = append(out, strings.TrimSpace(strings.TrimLeft(t, "/")))
		case t == "" && len(out) == 0:
			continue
		default:
			return strings.TrimSpace(strings.Join(out, "\n"))
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

var directive = regexp.MustCompile(`^//(go:|nolint|export |line |\s*\+build|\s*eslint|\s*istanbul|\s*@ts-|\s*prettier-|\s*jshint|\s*c8 )`)

func isDirective(t string) bool { return directive.MatchString(t) }

// docstring returns a Python function's or class's docstring: the first
// statement of its body when that is a string literal.
func docstring(content string) string {
	lines := strings.Split(content, "\n")
	i := 0
	for ; i < len(lines); i++ { // skip decorators up to the def or class line
		t := strings.TrimSpace(lines[i])
		if strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "async def ") || strings.HasPrefix(t, "class ") {
			break
		}
	}
	depth := 0
	for ; i < len(lines); i++ { // to the line that ends the header: depth 0 and a final ":"
		code, _, _ := strings.Cut(lines[i], "#")
		depth += strings.Count(code, "(") + strings.Count(code, "[") - strings.Count(code, ")") - strings.Count(code, "]")
		if depth <= 0 && strings.HasSuffix(strings.TrimSpace(code), ":") {
			break
		}
	}
	body := strings.Join(lines[min(i+1, len(lines)):], "\n")
	body = strings.TrimLeft(body, " \t\r\n")
	body = strings.TrimLeft(body, "rRuUbB")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(body, q) {
			rest := body[len(q):]
			if end := strings.Index(rest, q); end >= 0 {
				return dedent(rest[:end])
			}
			return ""
		}
	}
	return ""
}

func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

var (
	mdLink      = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
	goDocLink   = regexp.MustCompile(`\[([*.\w]+)\]`)
	jsLink      = regexp.MustCompile(`\{@(?:link|linkcode|linkplain)\s+([^}|\s]+)(?:[|\s][^}]*)?\}`)
	rstRole     = regexp.MustCompile(`:[a-z]+(?::[a-z]+)?:` + "`~?([^`]+)`")
	htmlTag     = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
	backticks   = regexp.MustCompile("`+([^`]*)`+")
	sentenceEnd = regexp.MustCompile(`[.!?](\s|$)`)
	spaces      = regexp.MustCompile(`\s+`)
)

// abbreviations end with a period without ending a sentence.
var abbreviations = []string{"e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "resp.", "incl."}

// firstSentence returns the first sentence of a doc comment's first
// paragraph, markup removed (markdown and Go doc links, JSDoc {@link},
// reStructuredText roles, HTML tags, backticks), on one line; "" when the
// comment starts with a tag (@param), a licence header, or a marker
// (Deprecated:, TODO).
func firstSentence(doc string) string {
	para, _, _ := strings.Cut(strings.TrimSpace(doc), "\n\n")
	var kept []string
	for _, l := range strings.Split(para, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "@") { // JSDoc tags end the description
			break
		}
		kept = append(kept, l)
	}
	s := spaces.ReplaceAllString(strings.Join(kept, " "), " ")
	s = strings.TrimSpace(s)
	lower := strings.ToLower(s)
	for _, bad := range []string{"deprecated", "todo", "fixme", "xxx", "copyright", "license", "licence", "spdx",
		"code generated", "nolint", "see ", "note:", "hack", "internal", "private", "noinspection"} {
		if strings.HasPrefix(lower, bad) {
			return ""
		}
	}
	s = mdLink.ReplaceAllString(s, "$1")
	s = jsLink.ReplaceAllString(s, "$1")
	s = rstRole.ReplaceAllString(s, "$1")
	s = goDocLink.ReplaceAllString(s, "$1")
	s = htmlTag.ReplaceAllString(s, "")
	s = backticks.ReplaceAllString(s, "$1")
	s = strings.NewReplacer("**", "", "__", "", "\\", "").Replace(s)
	// Cut at the first sentence end that is not an abbreviation.
	from := 0
	for {
		loc := sentenceEnd.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		end := from + loc[0] + 1
		if isAbbreviation(s[:end]) {
			from = end
			continue
		}
		s = s[:end]
		break
	}
	return strings.TrimSpace(s)
}

func isAbbreviation(upTo string) bool {
	lower := strings.ToLower(upTo)
	for _, a := range abbreviations {
		if strings.HasSuffix(lower, a) && (len(lower) == len(a) || !isWordRune(rune(lower[len(lower)-len(a)-1]))) {
			return true
		}
	}
	return false
}
