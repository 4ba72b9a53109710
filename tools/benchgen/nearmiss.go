package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// readNearMiss reads the hand-written near misses: "repo<TAB>question<TAB>how
// the feature was checked to be absent" a line, "#" comments and blank
// lines skipped. The repository must be one of repos; the check is for
// people (NOTES.md) and is required.
func readNearMiss(r io.Reader, repos []Repo) (map[string][]string, error) {
	known := map[string]bool{}
	for _, rp := range repos {
		known[rp.Name] = true
	}
	out := map[string][]string{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[1] == "" || f[2] == "" {
			return nil, fmt.Errorf("line %d: want repo, question and check, tab-separated", n)
		}
		if !known[f[0]] {
			return nil, fmt.Errorf("line %d: repository %q is not in repos.tsv", n, f[0])
		}
		out[f[0]] = append(out[f[0]], f[1])
	}
	return out, sc.Err()
}
