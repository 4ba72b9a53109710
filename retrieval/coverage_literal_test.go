package retrieval

import (
	"strings"
	"testing"
)

// TestLiteralHeld checks when a chunk holds a literal of the question: a
// pasted message with its values filled in against the format string in
// each language's interpolation, a setting by its key, and the messages
// that must stay missing. Each case holds as typed and in lower case.
func TestLiteralHeld(t *testing.T) {
	tests := []struct {
		name, literal, content string
		want                   bool
	}{
		{"verbatim", "group_interval cannot be zero", `errors.New("group_interval cannot be zero")`, true},
		{"python f-string", "Invalid input of type: 'bool'. Convert to a bytes, string, int or float first.",
			`raise DataError(f"Invalid input of type: '{typename}'. Convert to a bytes, string, int or float first.")`, true},
		{"python %r, value with punctuation", "Invalid URL 'http://': No host supplied",
			`raise InvalidURL(f"Invalid URL {url!r}: No host supplied")`, true},
		{"python %, URL value of several words", "No connection adapters were found for 'ftp://files.example.com/report.csv'",
			`raise InvalidSchema(f"No connection adapters were found for {url!r}")`, true},
		{"python %s, a date value", "Invalid Retry-After header: Fri, 31 Dec 1999 23:59:59 GMT",
			`raise InvalidHeader("Invalid Retry-After header: %s" % retry_after)`, true},
		{"go %d and %v, wrapped error appended", "failed to get log at index 1042: log not found",
			`return fmt.Errorf("failed to get log at index %d: %v", index, err)`, true},
		{"js template literal over two lines", "Unsupported protocol version: 9 (supported versions: 8, 13)",
			"throw new RangeError(\n  `Unsupported protocol version: ${opts.protocolVersion} ` +\n    `(supported versions: ${protocolVersions.join(', ')})`\n);", true},
		{"js concatenation, runtime prefix", "AxiosError: maxContentLength size of 2000 exceeded",
			`reject(new AxiosError('maxContentLength size of ' + config.maxContentLength + ' exceeded',`, true},
		{"js value in quotes", `The "chat.v2" subprotocol is duplicated`,
			"throw new SyntaxError(`The \"${protocol}\" subprotocol is duplicated`);", true},
		{"setting by its key", "retry_on_timeout=True", "def __init__(self, retry_on_timeout=False):", true},
		{"setting with spaces", "socket_timeout = 5", "kwargs['socket_timeout'] = float(value)", true},
		{"setting: key absent", "pool_recycle=3600", "def _get_conn(self, timeout=None):", false},
		{"no message: another library's", "retry budget of 5 exhausted for host example.com",
			`raise MaxRetryError(_pool, url, error or ResponseError(cause))  # retry ... for host`, false},
		{"no message: constant words scattered", "snapshot 2-1042 failed integrity check: expected sha256 9f2c, got 11ab",
			"// snapshot is taken\nfunc f() {\n\tif err != nil {\n\t\treturn err\n\t}\n\tlog(\"failed to persist\")\n}", false},
		{"no message: half the words only", "connection reset by peer while reading the response",
			`raise ProtocolError("Connection aborted.", err)`, false},
		{"no message: a prefix is no setting", "AxiosError: Circuit breaker is open for api.example.com",
			"throw new AxiosError('Unknown adapter')", false},
		{"short literal: verbatim only", "retry after", "retry_after = 5; // after a retry", false},
	}
	for _, tt := range tests {
		for _, l := range []string{tt.literal, strings.ToLower(tt.literal)} {
			if got := literalHeld(l, tt.content); got != tt.want {
				t.Errorf("%s: literalHeld(%q) = %v, want %v", tt.name, l, got, tt.want)
			}
		}
	}
}

// BenchmarkMessageHeld times a pasted message against a long chunk (about
// 2,000 terms) that holds it only at its end.
func BenchmarkMessageHeld(b *testing.B) {
	content := strings.Repeat("for i in range(n): the value of x is set to the result of f\n", 130) +
		`raise DataError(f"Invalid input of type: '{typename}'. Convert to a bytes, string, int or float first.")`
	msg, values := messageTerms("Invalid input of type: 'bool'. Convert to a bytes, string, int or float first.")
	src := AppendTerms(nil, content, false)
	b.ResetTimer()
	for range b.N {
		if !messageHeld(msg, values, src) {
			b.Fatal("not held")
		}
	}
}
