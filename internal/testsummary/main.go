// Command testsummary reads `go test -json` events (cmd/test2json's format,
// https://pkg.go.dev/cmd/test2json) on stdin and prints what a plain
// `go test` would: each package's ok/FAIL/no-test-files line, the output of
// failing tests and build errors, and then, as the last line,
// "N passed, N failed" counting test functions (top-level tests; subtests
// count through their parent). A package that fails with no failing test
// (a build error, TestMain, a panic outside a test) counts as one failure,
// so the summary never says 0 failed when the run failed. It exits 1 when
// anything failed. scripts/test.sh pipes `go test -json ./...` into it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of test2json output.
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output and build-fail events
}

func main() {
	passed, failed, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

// summarize copies the interesting output of the events on r to w and
// counts the test functions that passed and failed.
func summarize(r io.Reader, w io.Writer) (passed, failed int, err error) {
	held := map[string][]string{}      // a running test's output, shown if it fails
	pkgFailedTests := map[string]int{} // failing tests per package
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if json.Unmarshal(line, &ev) != nil || ev.Action == "" {
			fmt.Fprintf(w, "%s\n", line) // not an event: pass it on as go test would
			continue
		}
		key := ev.Package + " " + ev.Test
		switch ev.Action {
		case "build-output":
			fmt.Fprint(w, ev.Output)
		case "output":
			// "=== RUN" and the like are -v framing that a plain go test hides.
			if strings.HasPrefix(ev.Output, "=== ") {
				break
			}
			if ev.Test != "" {
				held[key] = append(held[key], ev.Output)
			} else if ev.Output != "PASS\n" {
				fmt.Fprint(w, ev.Output)
			}
		case "pass", "skip":
			delete(held, key)
			if ev.Action == "pass" && ev.Test != "" && !strings.Contains(ev.Test, "/") {
				passed++
			}
		case "fail":
			switch {
			case ev.Test == "":
				if pkgFailedTests[ev.Package] == 0 {
					failed++
				}
			case !strings.Contains(ev.Test, "/"):
				fmt.Fprint(w, strings.Join(held[key], ""))
				failed++
				pkgFailedTests[ev.Package]++
			default: // a subtest: its output shows with its parent's
				if p, _, _ := strings.Cut(ev.Test, "/"); p != "" {
					pk := ev.Package + " " + p
					held[pk] = append(held[pk], held[key]...)
				}
			}
			delete(held, key)
		}
	}
	return passed, failed, sc.Err()
}
