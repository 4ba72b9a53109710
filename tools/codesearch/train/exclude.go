package train

import (
	"errors"
	"fmt"
	"strings"
)

// Reserved names the code that training must never read: the code of the
// eval corpora (testdata/eval, docs/evaluation.md) and the modules set
// aside with them, so that the held-out figures stay held out. A Go module
// path is reserved when it has one of ReservedGoPrefixes as a prefix; a
// Python or npm package, or any path segment of a file, when it is one of
// ReservedPackages.
var (
	ReservedGoPrefixes = []string{
		"github.com/prometheus/",
		"github.com/nats-io/",
		"github.com/hashicorp/",
		"go.etcd.io/",
		"github.com/octokit/",
		"github.com/jackc/",   // testdata/eval/callers (pgx)
		"github.com/gorilla/", // testdata/eval/fresh (websocket)
	}
	ReservedPackages = []string{
		"requests", "urllib3", "redis", // Python
		"axios", "express", "ws", "commander", "@octokit", // npm
		"alertmanager", "raft", // the eval corpora's own names
	}
)

// ErrReserved is wrapped by CheckRoot's error for reserved inputs.
var ErrReserved = errors.New("reserved for evaluation, never trained on")

// CheckRoot returns an error wrapping ErrReserved when name, a Go module
// path or a Python or npm package name (an npm name may carry "@version"),
// is reserved.
func CheckRoot(name string) error {
	n := strings.ToLower(name)
	for _, p := range ReservedGoPrefixes {
		if strings.HasPrefix(n+"/", p) {
			return fmt.Errorf("%s: %w", name, ErrReserved)
		}
	}
	if i := strings.LastIndex(n, "@"); i > 0 {
		n = n[:i]
	}
	n = strings.TrimPrefix(n, "python3-")
	for _, p := range ReservedPackages {
		if n == p || strings.HasPrefix(n, p+"/") {
			return fmt.Errorf("%s: %w", name, ErrReserved)
		}
	}
	return nil
}

// reservedPath reports whether a slash-separated file path has a reserved
// segment (a vendored copy such as pip/_vendor/urllib3/, or a
// node_modules/axios/ inside a package).
func reservedPath(p string) bool {
	for _, seg := range strings.Split(strings.ToLower(p), "/") {
		for _, r := range ReservedPackages {
			if seg == r || seg == r+".py" {
				return true
			}
		}
	}
	for _, pre := range ReservedGoPrefixes {
		if strings.Contains(strings.ToLower(p)+"/", pre) {
			return true
		}
	}
	return false
}
