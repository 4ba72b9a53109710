package slack

import (
	"fmt"
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<!channel> ping", "&lt;!channel&gt; ping"},
		{"<https://evil|click>", "&lt;https://evil|click&gt;"},
		{"a && b < c > d", "a &amp;&amp; b &lt; c &gt; d"},
		{`"quotes" 'stay' *bold* _it_`, `"quotes" 'stay' *bold* _it_`}, // only &, <, > (api.slack.com/reference/surfaces/formatting#escaping)
		{"&amp; already", "&amp;amp; already"},                         // source text is text: escaped again
	}
	for _, tt := range tests {
		if got := escape(tt.in); got != tt.want {
			t.Errorf("escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPlainText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<@U0BOT> where is the retry for 503?", "where is the retry for 503?"},
		{"<@U0BOT|ragbot>   where is\n<#C123|payments> config?", "where is #payments config?"},
		{"<!here> <@U0BOT> see <https://git.example.com/x|retry.go> &amp; <https://a.example>", "see retry.go & https://a.example"},
		{"is `a &lt; b` in <@U0OTHER>'s code?", "is `a < b` in 's code?"},
		{"<@U0BOT>", ""},
	}
	for _, tt := range tests {
		if got := plainText(tt.in); got != tt.want {
			t.Errorf("plainText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLink(t *testing.T) {
	tests := []struct{ url, label, want string }{
		{"https://git.example.com/a/blob/abc/x.go#L1-L2", "x.go:1-2", "<https://git.example.com/a/blob/abc/x.go#L1-L2|x.go:1-2>"},
		{"", "x.go:1-2", "x.go:1-2"},
		{"javascript:alert(1)", "x.go:1-2", "x.go:1-2"},
		{"https://evil.example/a>b", "x", "x"},
		{"https://git.example.com/a", "we|ird<path>", "<https://git.example.com/a|we¦ird&lt;path&gt;>"},
	}
	for _, tt := range tests {
		if got := link(tt.url, tt.label); got != tt.want {
			t.Errorf("link(%q, %q) = %q, want %q", tt.url, tt.label, got, tt.want)
		}
	}
}

func TestCodeBlock(t *testing.T) {
	lines := func(n, width int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "%-*s\n", width, fmt.Sprintf("line %d", i))
		}
		return b.String()
	}
	tests := []struct {
		name      string
		code      string
		more      int
		limit     int
		wantLines int    // code lines kept
		wantMore  string // the footer, "" for none
	}{
		{name: "fits", code: "func f() {\n\treturn\n}\n", limit: 3000, wantLines: 3},
		{name: "retrieval already cut", code: lines(30, 10), more: 4970, limit: 3000, wantLines: 30, wantMore: "_… 4970 more lines_"},
		// The code budget is 3000 - 48 (fences, newlines, footer room) = 2952 bytes:
		// 29 lines of 100 bytes take 29*100+28 = 2928, 30 would take 3029. 1 + 4970 more.
		{name: "long lines cut here too", code: lines(30, 100), more: 4970, limit: 3000, wantLines: 29, wantMore: "_… 4971 more lines_"},
		{name: "one more line", code: lines(2, 100), limit: 200, wantLines: 1, wantMore: "_… 1 more line_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := codeBlock(tt.code, tt.more, tt.limit)
			if len(got) > tt.limit {
				t.Errorf("block is %d bytes, over the limit %d", len(got), tt.limit)
			}
			body, footer, _ := strings.Cut(strings.TrimPrefix(got, "```\n"), "\n```")
			if n := len(strings.Split(body, "\n")); n != tt.wantLines {
				t.Errorf("kept %d lines, want %d:\n%s", n, tt.wantLines, got)
			}
			if footer != "" && tt.wantMore == "" || !strings.HasSuffix(footer, tt.wantMore) {
				t.Errorf("footer %q, want %q", footer, tt.wantMore)
			}
		})
	}

	// A single minified line longer than the block is cut, not dropped,
	// and an entity is never split.
	long := strings.Repeat("a<b&", 2000)
	got := codeBlock(long, 0, 500)
	if len(got) > 500 || !strings.Contains(got, "…") {
		t.Errorf("long line: %d bytes, want <= 500 with …", len(got))
	}
	body := strings.TrimSuffix(strings.SplitN(got, "\n", 3)[1], "…")
	if i := strings.LastIndexByte(body, '&'); i >= 0 && !strings.Contains(body[i:], ";") {
		t.Errorf("long line cut inside an entity: ...%q", body[max(0, len(body)-12):])
	}

	// A ``` in the source cannot end the block early.
	got = codeBlock("x := \"```\"\n", 0, 3000)
	if strings.Count(got, "```") != 2 {
		t.Errorf("codeBlock with ``` inside: %q has %d fences, want 2", got, strings.Count(got, "```"))
	}
}
