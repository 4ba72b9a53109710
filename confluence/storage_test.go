package confluence

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseStoragePitfalls covers what an HTML5 parser does to storage
// format when the text is not prepared (CDATA read as a comment that ends at
// the first ">", self-closed non-void elements left open), and the
// rendering rules, one case each.
func TestParseStoragePitfalls(t *testing.T) {
	code := func(lang, body string) string {
		return `<ac:structured-macro ac:name="code" ac:schema-version="1"><ac:parameter ac:name="language">` + lang +
			`</ac:parameter><ac:plain-text-body><![CDATA[` + body + `]]></ac:plain-text-body></ac:structured-macro>`
	}
	tests := []struct {
		name    string
		storage string
		want    []string // rendered blocks; headings as "H2 text"
	}{
		{
			name:    "CDATA with < and > stays whole",
			storage: code("go", "if a < b && c > d {\n\treturn \"<none>\"\n}"),
			want:    []string{"```go\nif a < b && c > d {\n\treturn \"<none>\"\n}\n```"},
		},
		{
			name:    "CDATA keeps carriage returns, entities and a split ]]>",
			storage: code("bash", "echo &amp; done\r\nx=\"]]]]><![CDATA[>\""),
			want:    []string{"```bash\necho &amp; done\r\nx=\"]]>\"\n```"},
		},
		{
			name:    "a self-closed toc does not swallow what follows",
			storage: `<ac:structured-macro ac:name="toc" ac:schema-version="1"/><p>after the toc</p><h2>Next</h2>`,
			want:    []string{"after the toc", "H2 Next"},
		},
		{
			name:    "a self-closed ri:page does not swallow the link body",
			storage: `<p>See <ac:link><ri:page ri:content-title="a > b" ri:space-key="OPS"/><ac:plain-text-link-body><![CDATA[the A page]]></ac:plain-text-link-body></ac:link> now.</p>`,
			want:    []string{"See the A page (a > b) now."},
		},
		{
			name:    "a link without a body shows the page title",
			storage: `<p>See <ac:link><ri:page ri:content-title="Deploy runbook" /></ac:link>.</p>`,
			want:    []string{"See Deploy runbook."},
		},
		{
			name:    "a self-closed time keeps the text after it",
			storage: `<p>Due <time datetime="2024-06-01"/> at noon.</p>`,
			want:    []string{"Due 2024-06-01 at noon."},
		},
		{
			name:    "a panel inside a paragraph keeps its body",
			storage: `<p>Before: <ac:structured-macro ac:name="note"><ac:rich-text-body><p>inner</p><p>second</p></ac:rich-text-body></ac:structured-macro> after</p>`,
			want:    []string{"Before:", "Note: inner", "second", "after"},
		},
		{
			name:    "emoticons, placeholders and empty macros are dropped",
			storage: `<p>ok <ac:emoticon ac:name="tick"/><ac:placeholder>type here</ac:placeholder></p><ac:structured-macro ac:name="info"><ac:rich-text-body><p/></ac:rich-text-body></ac:structured-macro><ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[  ]]></ac:plain-text-body></ac:structured-macro>`,
			want:    []string{"ok"},
		},
		{
			name:    "a heading in a layout cell splits, and one in an expand in a cell",
			storage: `<ac:layout><ac:layout-section ac:type="two_equal"><ac:layout-cell><h2>Left</h2></ac:layout-cell><ac:layout-cell><ac:structured-macro ac:name="expand"><ac:parameter ac:name="title">More</ac:parameter><ac:rich-text-body><h2>Inner</h2><p>x</p></ac:rich-text-body></ac:structured-macro></ac:layout-cell></ac:layout-section></ac:layout>`,
			want:    []string{"H2 Left", "H2 Inner", "More", "x"},
		},
		{
			name:    "a table without a header row, and one led by th",
			storage: `<table><tbody><tr><td>a</td><td>b</td></tr></tbody></table><table><tbody><tr><th>Host</th><td>db-1</td><td>db-2</td></tr></tbody></table>`,
			want:    []string{"a | b", "Host: db-1 | db-2"},
		},
		{
			name:    "code in a table cell is inlined",
			storage: `<table><tbody><tr><th>Step</th><th>Run</th></tr><tr><td>1</td><td>` + code("bash", "make deploy") + `</td></tr></tbody></table>`,
			want:    []string{"Step: 1; Run: make deploy"},
		},
		{
			name:    "jira and status macros render inline",
			storage: `<p>Tracked in <ac:structured-macro ac:name="jira"><ac:parameter ac:name="key">OPS-7</ac:parameter></ac:structured-macro>, state <ac:structured-macro ac:name="status"><ac:parameter ac:name="title">DONE</ac:parameter></ac:structured-macro>.</p>`,
			want:    []string{"Tracked in OPS-7, state DONE."},
		},
		{
			name:    "ordered list with code between items",
			storage: `<ol start="3"><li><p>Build:</p>` + code("", "make") + `</li><li>Ship</li></ol>`,
			want:    []string{"3. Build:", "```\nmake\n```", "4. Ship"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, b := range parseStorage(tt.storage, nil) {
				if b.level > 0 {
					got = append(got, "H"+string(rune('0'+b.level))+" "+b.text)
					continue
				}
				got = append(got, b.text)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLongSectionWindows cuts a long section at line boundaries, never
// inside a code block, and repeats the heading atop later windows.
func TestLongSectionWindows(t *testing.T) {
	var b strings.Builder
	b.WriteString("<h2>Inventory</h2><table><tbody>")
	for i := range 150 {
		b.WriteString("<tr><td>host-" + strings.Repeat("x", i%3) + "</td></tr>")
	}
	b.WriteString("</tbody></table>")
	b.WriteString(`<ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[` + strings.Repeat("line\n", 100) + `end]]></ac:plain-text-body></ac:structured-macro>`)
	chunks := Doc{Title: "Hosts", Path: "OPS/Hosts"}.SplitStorage(b.String())
	// The section: heading, blank, 150 rows, blank, 103 code lines (fences,
	// 100 lines, "end") = 256 lines. Windows of up to 120 lines: the rows
	// fill the first and part of the second; the code block does not fit
	// after them, so it is a window of its own; no window starts blank.
	type win struct{ start, end, ordinal int }
	var got []win
	for _, c := range chunks {
		got = append(got, win{c.StartLine, c.EndLine, c.Ordinal})
	}
	if diff := cmp.Diff([]win{{1, 120, 0}, {121, 152, 1}, {154, 256, 2}}, got, cmp.AllowUnexported(win{})); diff != "" {
		t.Fatalf("windows (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(chunks[1].Content, "## Inventory\nhost-") {
		t.Errorf("second window does not start with the heading:\n%.100s", chunks[1].Content)
	}
	if last := chunks[2].Content; !strings.HasPrefix(last, "## Inventory\n```\nline\n") || !strings.HasSuffix(last, "end\n```") {
		t.Errorf("third window does not hold the heading then the whole code block:\n%.200s", last)
	}
}
