package version

import (
	"cmp"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// Stamp is the version, commit and work tree state stamped at link time by
// scripts/build.sh (go build -ldflags "-X main.stampedCommit=SHA ..."), so
// that the commit is known however the binary was built: the go command
// stamps vcs.revision only when it can run git on the work tree and
// -buildvcs is not false (GOFLAGS=-buildvcs=false, a copy of the tree
// without .git). Its zero value stamps nothing and leaves the build info.
type Stamp struct {
	Version  string // the release tag at the commit, "v1.2.0"
	Commit   string // full SHA of the commit built
	Modified bool   // the work tree had changes
}

// PrintBuild writes the first two lines of `ragbot version` to w:
// "ragbot " and Build's version, and "go " and the Go version.
func PrintBuild(w io.Writer, s Stamp) {
	fmt.Fprintf(w, "ragbot %s\n", Build(s))
	fmt.Fprintf(w, "go %s\n", runtime.Version())
}

// Build is ragbot's version and commit: the stamped ones, else the main
// module's version with the vcs.revision and vcs.modified settings the go
// command stamps into the binary (see runtime/debug.BuildInfo and `go help
// buildvcs`), e.g. "v1.2.0 (d5de0b2c1f3a, modified)"; "(devel)" for a `go
// build` with neither.
func Build(s Stamp) string {
	bi, _ := debug.ReadBuildInfo()
	return Of(bi, s)
}

// Of is Build for build info bi (nil when the binary has none) and the
// stamped values s: a stamped commit replaces the build info's vcs
// settings, with its Modified; a stamped version replaces the module's.
// The commit is shortened to 12 hex digits.
func Of(bi *debug.BuildInfo, s Stamp) string {
	if bi == nil && s.Version == "" && s.Commit == "" {
		return "unknown (no build info)"
	}
	v := s.Version
	if bi != nil {
		v = cmp.Or(v, bi.Main.Version)
	}
	v = cmp.Or(v, "(devel)")
	rev, modified := s.Commit, s.Modified
	if rev == "" && bi != nil {
		for _, set := range bi.Settings {
			switch set.Key {
			case "vcs.revision":
				rev = set.Value
			case "vcs.modified":
				modified = set.Value == "true"
			}
		}
	}
	var extra []string
	if rev != "" {
		extra = append(extra, rev[:min(12, len(rev))])
	}
	if modified {
		extra = append(extra, "modified")
	}
	if len(extra) > 0 {
		v += " (" + strings.Join(extra, ", ") + ")"
	}
	return v
}
