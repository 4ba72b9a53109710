package retrieval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// longFunc is a Go function of n lines starting at file line 1: a
// signature, filler statements, and the given lines (line number -> text)
// in place of filler, then "}".
func longFunc(n int, at map[int]string) Chunk {
	lines := []string{"func Reconcile(ctx context.Context, state *State) error {"}
	for l := 2; l < n; l++ {
		if s, ok := at[l]; ok {
			lines = append(lines, s)
			continue
		}
		lines = append(lines, fmt.Sprintf("\tstep%d := state.next(ctx)", l))
	}
	lines = append(lines, "}")
	return Chunk{Source: "repo:svc", Kind: KindCode, Path: "svc/reconcile.go", Symbol: "Reconcile", Language: "go",
		Signature: "func Reconcile(ctx context.Context, state *State) error", Content: strings.Join(lines, "\n"),
		StartLine: 1, EndLine: n}
}

func TestFocusSnippetWindow(t *testing.T) {
	tests := []struct {
		name     string
		chunk    Chunk
		question string
		// wantShown is ShownStart-ShownEnd ({0, 0}: NewSnippet's result).
		wantShown [2]int
		// wantLines must all be in Text; wantOut must not.
		wantLines []string
		wantOut   []string
		wantMore  int
	}{{
		// The literal on line 90 (focusExact) outweighs everything else;
		// every 29-line window (30 less the signature) holding it scores the
		// same, and the chosen one is centred on it: 76-104.
		name:      "literal at line 90 of 120",
		chunk:     longFunc(120, map[int]string{90: `	return fmt.Errorf("lease expired for %s", id)`}),
		question:  `where do we return "lease expired"?`,
		wantShown: [2]int{76, 104},
		wantLines: []string{"func Reconcile(ctx context.Context, state *State) error {", "... lines 2-75 not shown ...",
			`	return fmt.Errorf("lease expired for %s", id)`},
		wantOut:  []string{"step2 "},
		wantMore: 16,
	}, {
		// Rare terms on lines 70 and 95 (each once: rarity 1) pull the window
		// to those holding both, centred on 70-95: 69-97.
		name: "two rare terms",
		chunk: longFunc(120, map[int]string{70: "\tquota := limits.Quota(tenant)",
			95: "\tif quota.Exceeded() { return errThrottled }"}),
		question:  "where is the tenant quota throttled?",
		wantShown: [2]int{69, 97},
		wantLines: []string{"func Reconcile(", "... lines 2-68 not shown ...", "limits.Quota(tenant)", "errThrottled"},
		wantMore:  23,
	}, {
		// A line named by number (a trace's frame) outweighs the literal on
		// line 30: the window is centred on line 100.
		name:      "named line",
		chunk:     longFunc(120, map[int]string{30: `	return fmt.Errorf("lease expired for %s", id)`}),
		question:  "panic in \"lease expired\" at /home/ci/svc/reconcile.go:100 +0x1f",
		wantShown: [2]int{86, 114},
		wantLines: []string{"func Reconcile(", "... lines 2-85 not shown ...", "step100 "},
		wantOut:   []string{"lease expired"},
		wantMore:  6,
	}, {
		// The same line of another file is no named line.
		name:      "line of another file",
		chunk:     longFunc(120, map[int]string{30: `	return fmt.Errorf("lease expired for %s", id)`}),
		question:  "panic in \"lease expired\" at /home/ci/svc/other.go:100 +0x1f",
		wantShown: [2]int{16, 44},
		wantLines: []string{"lease expired"},
		wantOut:   []string{"step100 "},
		wantMore:  76,
	}, {
		name:      "no match keeps the top",
		chunk:     longFunc(120, nil),
		question:  "where is the kafka consumer?",
		wantLines: []string{"func Reconcile(", "step30 "},
		wantOut:   []string{"not shown"},
		wantMore:  90,
	}, {
		name:      "match near the top keeps the top",
		chunk:     longFunc(120, map[int]string{5: "\tlease := acquireLease(ctx)"}),
		question:  "acquireLease",
		wantLines: []string{"func Reconcile(", "acquireLease"},
		wantOut:   []string{"not shown"},
		wantMore:  90,
	}, {
		name:      "short chunk is whole",
		chunk:     longFunc(20, map[int]string{15: "\tlease := acquireLease(ctx)"}),
		question:  "acquireLease",
		wantLines: []string{"func Reconcile(", "acquireLease", "}"},
		wantOut:   []string{"not shown"},
	}, {
		// Equal matches on lines 50 and 100, each window holding one scores
		// the same: the earliest wins, centred on line 50 (36-64).
		name:      "tie goes to the earliest",
		chunk:     longFunc(120, map[int]string{50: "\tacquireLease(ctx)", 100: "\tacquireLease(ctx)"}),
		question:  "acquireLease",
		wantShown: [2]int{36, 64},
		wantLines: []string{"... lines 2-35 not shown ...", "\tacquireLease(ctx)"},
		wantOut:   []string{"step100 "},
		wantMore:  56,
	}, {
		// A doc comment of 3 lines and a one-line signature fit in the
		// header, leaving a 26-line window centred on line 93: 81-106.
		name: "doc comment kept with the signature",
		chunk: func() Chunk {
			c := longFunc(117, map[int]string{90: "\tacquireLease(ctx)"})
			c.Content = "// Reconcile drives the state\n// to the wanted one.\n//\n" + c.Content
			c.EndLine = 120
			return c
		}(),
		question:  "acquireLease",
		wantShown: [2]int{81, 106},
		wantLines: []string{"// Reconcile drives the state", "func Reconcile(", "... lines 5-80 not shown ...", "\tacquireLease(ctx)"},
		wantMore:  14,
	}, {
		// A later window of a split symbol: signature, "...", lines 61-120
		// (ingest/code's emit.go). The header is the signature alone; the
		// window centred on line 110 would pass the end: 92-120.
		name: "window of a split symbol",
		chunk: func() Chunk {
			c := longFunc(120, map[int]string{110: "\tacquireLease(ctx)"})
			lines := strings.Split(c.Content, "\n")
			c.Content = c.Signature + "\n...\n" + strings.Join(lines[60:], "\n")
			c.StartLine, c.Ordinal = 61, 1
			return c
		}(),
		question:  "acquireLease",
		wantShown: [2]int{92, 120},
		wantLines: []string{"func Reconcile(ctx context.Context, state *State) error", "... lines 61-91 not shown ...", "\tacquireLease(ctx)"},
		wantOut:   []string{"\n...\n"},
		wantMore:  0,
	}, {
		name: "doc section keeps its heading",
		chunk: func() Chunk {
			var b strings.Builder
			b.WriteString("## Leases\n")
			for l := 2; l <= 80; l++ {
				if l == 60 {
					b.WriteString("Set LEASE_TTL to change how long a lease lasts.\n")
					continue
				}
				fmt.Fprintf(&b, "Paragraph line %d about nothing in particular.\n", l)
			}
			return Chunk{Source: "docs:handbook", Kind: KindDoc, Path: "docs/leases.md", Symbol: "Ops > Leases",
				Content: b.String(), StartLine: 10, EndLine: 89}
		}(),
		question:  "how do I set LEASE_TTL?",
		wantShown: [2]int{55, 83},
		wantLines: []string{"## Leases", "... lines 11-54 not shown ...", "Set LEASE_TTL"},
		wantMore:  6,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FocusSnippet(tt.chunk, NewFocusTerms(tt.question))
			if diff := cmp.Diff(tt.wantShown, [2]int{got.ShownStart, got.ShownEnd}); diff != "" {
				t.Errorf("shown lines (-want +got):\n%s\ntext:\n%s", diff, got.Text)
			}
			for _, l := range tt.wantLines {
				if !strings.Contains(got.Text, l) {
					t.Errorf("text lacks %q:\n%s", l, got.Text)
				}
			}
			for _, l := range tt.wantOut {
				if strings.Contains(got.Text, l) {
					t.Errorf("text has %q:\n%s", l, got.Text)
				}
			}
			if got.MoreLines != tt.wantMore {
				t.Errorf("MoreLines = %d, want %d", got.MoreLines, tt.wantMore)
			}
			if n := strings.Count(got.Text, "\n") + 1; n > MaxSnippetLines+2 {
				t.Errorf("text has %d lines, want at most %d (window, header and markers)", n, MaxSnippetLines+2)
			}
			if got.ShownStart == 0 {
				if want := NewSnippet(tt.chunk); got != want {
					t.Errorf("unfocused snippet differs from NewSnippet:\n%s\nwant:\n%s", got.Text, want.Text)
				}
			}
		})
	}
}

func TestNewFocusTerms(t *testing.T) {
	// "Lease.renewLocked" gives its method name too; "Lease.Renew" would
	// not ("Renew" has no identifier shape, and "pkg.Func" must not make
	// "func" a name), its terms still count.
	got := NewFocusTerms(`where does Lease.renewLocked return "lease expired"?`)
	want := FocusTerms{Exact: []string{"lease.renewlocked", "renewlocked", "lease expired"},
		Terms: []string{"lease", "renew", "locked", "renewlocked", "return", "expired"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewFocusTerms (-want +got):\n%s", diff)
	}
}
