package code

import (
	"bytes"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Reasons returned by SkipReason.
const (
	SkipBinary    = "binary"
	SkipVendored  = "vendored"
	SkipGenerated = "generated"
	SkipMinified  = "minified"
	SkipTooLarge  = "too large"
)

// MaxFileBytes is the largest file indexed, in bytes (1 MiB).
const MaxFileBytes = 1 << 20

// binaryProbe is how many leading bytes are checked for NUL and control
// bytes, the same 8000 bytes git's buffer_is_binary looks at (xdiff-interface.c).
const binaryProbe = 8000

// Minified-file heuristic: a file over minifiedMinBytes whose lines average
// more than minifiedLineBytes bytes.
const (
	minifiedMinBytes  = 2 << 10
	minifiedLineBytes = 300
)

// vendorDirs are directory names whose contents are third-party code.
var vendorDirs = map[string]bool{"vendor": true, "node_modules": true, "third_party": true}

// generatedHeader is Go's marker for generated files, https://go.dev/s/generatedcode.
// It is also accepted after "#" for scripting languages.
var generatedHeader = regexp.MustCompile(`^(//|#) Code generated .* DO NOT EDIT\.$`)

// SkipReason says why a file must not be indexed, or "" to index it. path is
// repo-relative with "/" separators; src is the file's bytes. Reasons, in the
// order they are checked:
//   - SkipVendored: a directory of the path is vendor, node_modules or third_party;
//   - SkipTooLarge: more than MaxFileBytes (1 MiB);
//   - SkipBinary: a NUL byte, or more than 10% control bytes, in the first 8000 bytes;
//   - SkipMinified: a .min.js or .min.css name, or lines averaging over 300
//     bytes in a file over 2 KiB;
//   - SkipGenerated: a "Code generated ... DO NOT EDIT." line before the first
//     line of code (https://go.dev/s/generatedcode), or a *.pb.go,
//     *_pb2.py or *_generated.* name.
func SkipReason(p string, src []byte) string {
	switch {
	case vendored(p):
		return SkipVendored
	case len(src) > MaxFileBytes:
		return SkipTooLarge
	case binary(src):
		return SkipBinary
	case minified(p, src):
		return SkipMinified
	case generated(p, src):
		return SkipGenerated
	}
	return ""
}

func vendored(p string) bool {
	dirs := strings.Split(p, "/")
	return slices.ContainsFunc(dirs[:len(dirs)-1], func(d string) bool { return vendorDirs[d] })
}

// binary reports a NUL byte, or a share of control bytes (other than tab,
// LF, VT, FF, CR and ESC) over 10%, in the first binaryProbe bytes.
func binary(src []byte) bool {
	head := src[:min(len(src), binaryProbe)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	ctrl := 0
	for _, b := range head {
		if b < 0x20 && !strings.ContainsRune("\t\n\v\f\r\x1b", rune(b)) || b == 0x7f {
			ctrl++
		}
	}
	return ctrl*10 > len(head)
}

func minified(p string, src []byte) bool {
	base := strings.ToLower(path.Base(p))
	if strings.HasSuffix(base, ".min.js") || strings.HasSuffix(base, ".min.css") {
		return true
	}
	if len(src) <= minifiedMinBytes {
		return false
	}
	lines := bytes.Count(src, []byte("\n")) + 1
	return len(src)/lines > minifiedLineBytes
}

func generated(p string, src []byte) bool {
	base := path.Base(p)
	if strings.HasSuffix(base, ".pb.go") || strings.HasSuffix(base, "_pb2.py") ||
		strings.Contains(base, "_generated.") {
		return true
	}
	for _, l := range splitLines(src) {
		switch t := strings.TrimSpace(l); {
		case generatedHeader.MatchString(l):
			return true
		case t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") ||
			strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*"):
			continue
		}
		return false // first line of code, e.g. the package clause
	}
	return false
}
