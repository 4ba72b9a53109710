package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSummarize feeds events as `go test -json` writes them: a passing
// package, one with a failing subtest, one that does not build and one
// without tests.
func TestSummarize(t *testing.T) {
	in := `{"Action":"start","Package":"a"}
{"Action":"run","Package":"a","Test":"TestOK"}
{"Action":"output","Package":"a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"a","Test":"TestOK"}
{"Action":"output","Package":"a","Output":"PASS\n"}
{"Action":"output","Package":"a","Output":"ok  \ta\t0.01s\n"}
{"Action":"pass","Package":"a"}
{"Action":"run","Package":"b","Test":"TestBad"}
{"Action":"output","Package":"b","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"run","Package":"b","Test":"TestBad/case"}
{"Action":"output","Package":"b","Test":"TestBad/case","Output":"    b_test.go:9: got 1, want 2\n"}
{"Action":"output","Package":"b","Test":"TestBad/case","Output":"    --- FAIL: TestBad/case (0.00s)\n"}
{"Action":"fail","Package":"b","Test":"TestBad/case"}
{"Action":"output","Package":"b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"b","Test":"TestBad"}
{"Action":"run","Package":"b","Test":"TestFine"}
{"Action":"pass","Package":"b","Test":"TestFine"}
{"Action":"output","Package":"b","Output":"FAIL\n"}
{"Action":"output","Package":"b","Output":"FAIL\tb\t0.02s\n"}
{"Action":"fail","Package":"b"}
{"ImportPath":"c [c.test]","Action":"build-output","Output":"c/c.go:3:1: syntax error\n"}
{"ImportPath":"c [c.test]","Action":"build-fail"}
{"Action":"output","Package":"c","Output":"FAIL\tc [build failed]\n"}
{"Action":"fail","Package":"c"}
{"Action":"output","Package":"d","Output":"?   \td\t[no test files]\n"}
{"Action":"skip","Package":"d"}
`
	var out strings.Builder
	passed, failed, err := summarize(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if passed != 2 || failed != 2 {
		t.Errorf("passed %d, failed %d; want 2 passed (TestOK, TestFine), 2 failed (TestBad, package c)", passed, failed)
	}
	want := "ok  \ta\t0.01s\n" +
		"    b_test.go:9: got 1, want 2\n    --- FAIL: TestBad/case (0.00s)\n--- FAIL: TestBad (0.00s)\n" +
		"FAIL\nFAIL\tb\t0.02s\n" +
		"c/c.go:3:1: syntax error\nFAIL\tc [build failed]\n" +
		"?   \td\t[no test files]\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
