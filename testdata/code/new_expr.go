package silence

import "strings"

// Matcher matches one label; nil fields are unset.
type Matcher struct {
	Name    *string
	IsRegex *bool
}

// NewMatcher uses Go 1.26's new(expr): the operand of new is a value, not a type.
func NewMatcher(name string, expired bool) Matcher {
	return Matcher{
		Name:    new(strings.Repeat(name, 1) + "!"),
		IsRegex: new(!expired),
	}
}

// Names keeps new(T) with a type.
func Names() *[]string {
	s := new([]string)
	*s = append(*s, *new("alertname"))
	return s
}
