package code

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval"
)

// find returns the chunk with this symbol and ordinal, or a zero chunk.
func find(chunks []retrieval.Chunk, symbol string, ordinal int) retrieval.Chunk {
	for _, c := range chunks {
		if c.Symbol == symbol && c.Ordinal == ordinal {
			return c
		}
	}
	return retrieval.Chunk{}
}

func TestChunkContent(t *testing.T) {
	tests := []struct {
		name, file, symbol string
		want               string
	}{
		{
			name: "python decorator and docstring", file: "retry_client.py", symbol: "BillingClient.fetch_invoice",
			want: `    @retry(times=5, delay=1.0)
    def fetch_invoice(self, invoice_id):
        """Fetch one invoice as a dict.

        Raises TransientError when the API keeps failing.
        """
        resp = self.session.get(self.invoice_url(self.base_url, invoice_id), timeout=self.timeout)
        resp.raise_for_status()
        return resp.json()`,
		},
		{
			name: "java javadoc and annotations", file: "UserRepository.java", symbol: "UserRepository.findByEmail",
			want: `    /**
     * Finds the user with this email, ignoring case.
     *
     * @param email the address to look up
     * @return the user, or empty when there is none
     */
    @Override
    @Transactional(readOnly = true)
    public Optional<User> findByEmail(String email) {
        return queryOne(BY_EMAIL, email);
    }`,
		},
		{
			name: "go doc comment", file: "store.go", symbol: "Store.Put",
			want: `// Put stores value under key for ttl.
func (s *Store[T]) Put(key string, value T, ttl time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries[key] = entry[T]{value: value, expires: time.Now().Add(ttl)}
}`,
		},
		{
			name: "latin-1 bytes become U+FFFD", file: "latin1_units.go", symbol: "SizeLabel",
			want: "// SizeLabel returns the label of a size in bytes, e.g. \"12 KB (Gr\uFFFDe)\".\n" +
				"// Caf\uFFFD owners asked for the German label too.\n" +
				"func SizeLabel(n int) string {\n" +
				"\treturn label(n) + \" (Gr\uFFFDe)\"\n" +
				"}",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := find(Chunk(tt.file, readTestdata(t, tt.file), Options{}).Chunks, tt.symbol, 0)
			if diff := cmp.Diff(tt.want, got.Content); diff != "" {
				t.Errorf("%s content mismatch (-want +got):\n%s", tt.symbol, diff)
			}
		})
	}
}

// TestChunkCRLF checks that a CRLF file gives the chunks of its LF twin, with
// LF line ends.
func TestChunkCRLF(t *testing.T) {
	for _, file := range []string{"store.go", "retry_client.py", "user_service.ts", "UserRepository.java", "broken_handler.py"} {
		t.Run(file, func(t *testing.T) {
			lf := readTestdata(t, file)
			crlf := bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))
			want := Chunk(file, lf, Options{WindowLines: 10, Overlap: 3})
			got := Chunk(file, crlf, Options{WindowLines: 10, Overlap: 3})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("CRLF chunks differ from LF chunks (-want +got):\n%s", diff)
			}
			for _, c := range got.Chunks {
				if strings.Contains(c.Content+c.Signature, "\r") {
					t.Errorf("chunk %q %d-%d holds a CR", c.Symbol, c.StartLine, c.EndLine)
				}
			}
		})
	}
}

func TestChunkValidUTF8(t *testing.T) {
	src := readTestdata(t, "latin1_units.go")
	if utf8.Valid(src) {
		t.Fatal("testdata latin1_units.go must hold Latin-1 bytes")
	}
	for _, c := range Chunk("latin1_units.go", src, Options{}).Chunks {
		if !utf8.ValidString(c.Content) || !utf8.ValidString(c.Signature) {
			t.Errorf("chunk %q %d-%d is not valid UTF-8", c.Symbol, c.StartLine, c.EndLine)
		}
	}
}

// TestChunkWindows checks the shape of a split symbol: consecutive windows
// over the whole function, each after the first starting with the signature.
func TestChunkWindows(t *testing.T) {
	const sig = "func (s *Server) registerRoutes(mux *http.ServeMux)"
	src := readTestdata(t, "routes.go")
	var wins []retrieval.Chunk
	for _, c := range Chunk("routes.go", src, Options{}).Chunks {
		if c.Symbol == "Server.registerRoutes" {
			wins = append(wins, c)
		}
	}
	if len(wins) != 3 {
		t.Fatalf("got %d windows of registerRoutes, want 3", len(wins))
	}
	next := 5 // first line of the doc comment
	for i, w := range wins {
		if w.StartLine != next || w.Ordinal != i || w.Signature != sig {
			t.Errorf("window %d: start %d, ordinal %d, signature %q; want %d, %d, %q", i, w.StartLine, w.Ordinal, w.Signature, next, i, sig)
		}
		if !strings.Contains(strings.SplitN(w.Content, "\n...\n", 2)[0], sig) {
			t.Errorf("window %d does not start with the signature:\n%s", i, w.Content)
		}
		next = w.EndLine + 1
	}
	if next != 178 {
		t.Errorf("last window ends on line %d, want 177 (the closing brace)", next-1)
	}
}

func TestChunkBlank(t *testing.T) {
	for _, src := range []string{"", "\n", " \r\n\t\n"} {
		got := Chunk("empty.go", []byte(src), Options{})
		if diff := cmp.Diff(Result{}, got); diff != "" {
			t.Errorf("Chunk(%q) mismatch (-want +got):\n%s", src, diff)
		}
	}
}

// TestChunkNoSymbols checks that a Go file of only a package clause and
// imports is kept, as windows.
func TestChunkNoSymbols(t *testing.T) {
	src := "// Package tools pins build tools.\npackage tools\n\nimport _ \"golang.org/x/tools/cmd/stringer\"\n"
	got := Chunk("tools/tools.go", []byte(src), Options{})
	want := Result{
		Chunks: []retrieval.Chunk{{
			Kind: "code", Path: "tools/tools.go", SymbolKind: "window", Language: "go",
			Content: strings.TrimSuffix(src, "\n"), StartLine: 1, EndLine: 4,
			Refs: []string{"tools"}, // the package clause's name; "_" is left out
		}},
		Fallback: "no symbols",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestChunkConcurrent runs Chunk from several goroutines; run with -race.
func TestChunkConcurrent(t *testing.T) {
	files := []string{"store.go", "retry_client.py", "user_service.ts", "UserBadge.tsx", "UserRepository.java"}
	srcs := map[string][]byte{}
	want := map[string]Result{}
	for _, f := range files {
		srcs[f] = readTestdata(t, f)
		want[f] = Chunk(f, srcs[f], Options{})
	}
	got := make([]Result, 4*len(files))
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := files[i%len(files)]
			got[i] = Chunk(f, srcs[f], Options{})
		}()
	}
	wg.Wait()
	for i, g := range got {
		f := files[i%len(files)]
		if diff := cmp.Diff(want[f], g); diff != "" {
			t.Errorf("%s in goroutine %d (-want +got):\n%s", f, i, diff)
		}
	}
}

// TestChunkWindowsBlankEnds cuts testdata/code/envconfig.go, whose Load
// (lines 14-249) is longer than MaxLines and has a blank line as the last
// line of its first and third 60-line windows and as the first of its
// third: no window starts or ends with a blank line, each window's lines
// below its header are exactly the file's lines StartLine..EndLine, and
// the windows follow each other without overlap and cover every non-blank
// line of Load.
func TestChunkWindowsBlankEnds(t *testing.T) {
	src := readTestdata(t, "envconfig.go")
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	first, last := 0, len(lines) // Load's doc comment and closing brace, 1-based
	for i, l := range lines {
		if strings.HasPrefix(l, "// Load ") && first == 0 {
			first = i + 1
		}
	}
	for _, n := range []int{first + 59, first + 120, first + 179} {
		if strings.TrimSpace(lines[n-1]) != "" {
			t.Fatalf("envconfig.go line %d is not blank; the test needs it at a window's end or start", n)
		}
	}
	const sig = "func Load() *Config"
	covered := map[int]bool{}
	next := first
	var wins int
	for _, c := range Chunk("envconfig.go", src, Options{}).Chunks {
		if c.Symbol != "Load" {
			continue
		}
		body := c.Content
		if c.Ordinal > 0 {
			var ok bool
			if body, ok = strings.CutPrefix(c.Content, sig+"\n...\n"); !ok {
				t.Errorf("window %d does not start with %q and a \"...\" line:\n%s", c.Ordinal, sig, c.Content)
			}
		}
		want := strings.Join(lines[c.StartLine-1:c.EndLine], "\n")
		if body != want {
			t.Errorf("window %d (%d-%d): lines below its header differ from the file's:\n got %q\nwant %q", c.Ordinal, c.StartLine, c.EndLine, body, want)
		}
		if strings.TrimSpace(lines[c.StartLine-1]) == "" || strings.TrimSpace(lines[c.EndLine-1]) == "" {
			t.Errorf("window %d (%d-%d) starts or ends with a blank line", c.Ordinal, c.StartLine, c.EndLine)
		}
		if c.StartLine < next {
			t.Errorf("window %d starts on line %d, inside the window before it (ends %d)", c.Ordinal, c.StartLine, next-1)
		}
		for n := c.StartLine; n <= c.EndLine; n++ {
			covered[n] = true
		}
		next = c.EndLine + 1
		wins++
	}
	if wins < 4 {
		t.Errorf("Load has %d windows, want 4 (lines %d-%d in windows of %d)", wins, first, last, DefaultWindowLines)
	}
	for n := first; n <= last; n++ {
		if !covered[n] && strings.TrimSpace(lines[n-1]) != "" {
			t.Errorf("line %d of Load is in no window: %q", n, lines[n-1])
		}
	}
}
