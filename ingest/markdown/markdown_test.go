package markdown

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval"
)

// section builds the chunk Chunk returns for one section of path.
func section(path, symbol, signature, content string, start, end, ordinal int) retrieval.Chunk {
	return retrieval.Chunk{
		Kind:       retrieval.KindDoc,
		Path:       path,
		Symbol:     symbol,
		SymbolKind: "section",
		Language:   "markdown",
		Signature:  signature,
		Content:    content,
		StartLine:  start,
		EndLine:    end,
		Ordinal:    ordinal,
	}
}

// lines joins its arguments with "\n", one argument per source line.
func lines(l ...string) string { return strings.Join(l, "\n") }

// readFixture returns testdata/markdown/name from the repository root.
func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "markdown", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// guideWant is the expected chunking of testdata/markdown/guide.md.
func guideWant(path string) []retrieval.Chunk {
	return []retrieval.Chunk{
		section(path, "Ragbot Guide", "# Ragbot Guide",
			lines("# Ragbot Guide", "", `Ragbot answers "where is X" questions.`, ""), 1, 4, 0),
		section(path, "Ragbot Guide > Setup", "## Setup",
			lines("## Setup", "", "Install the binary:", "", "```sh",
				"# not a heading: a shell comment", "go install ./cmd/ragbot", "```", ""), 5, 13, 0),
		section(path, "Ragbot Guide > Setup > Tokens for Slack", "### Tokens for `Slack`",
			lines("### Tokens for `Slack`", "", "Set `SLACK_BOT_TOKEN`.", "", "#### Scopes", "",
				"`chat:write` and `app_mentions:read`.", ""), 14, 21, 0),
		section(path, "Ragbot Guide > Usage", "## Usage",
			lines("## Usage", "", "~~~", "## also not a heading", "~~~", ""), 22, 27, 0),
		section(path, "Ragbot Guide > Usage > FAQ", "### FAQ",
			lines("### FAQ", "", "First list.", ""), 28, 31, 0),
		section(path, "Ragbot Guide > Usage > FAQ", "### FAQ",
			lines("### FAQ", "", "Second list.", ""), 32, 35, 1),
		section(path, "Reference", "# Reference", lines("# Reference", ""), 36, 37, 0),
		section(path, "Reference > Setup", "## Setup", lines("## Setup", "", "See above."), 38, 40, 0),
	}
}

// longDoc returns a document whose H1 section has 1+n lines (its heading and
// n entries), followed by a two-line H2 section.
func longDoc(n int) string {
	var b strings.Builder
	b.WriteString("# Changelog\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- entry %d\n", i)
	}
	b.WriteString("## After\ndone\n")
	return b.String()
}

// entries returns the lines "- entry from" to "- entry to".
func entries(from, to int) []string {
	var l []string
	for i := from; i <= to; i++ {
		l = append(l, fmt.Sprintf("- entry %d", i))
	}
	return l
}

func TestChunk(t *testing.T) {
	guide := readFixture(t, "guide.md")
	tests := []struct {
		name string
		path string
		src  []byte
		want []retrieval.Chunk
	}{
		{
			name: "nested H1 H2 H3 H4, fences, duplicates",
			path: "docs/guide.md",
			src:  guide,
			want: guideWant("docs/guide.md"),
		},
		{
			name: "CRLF keeps line numbers and strips CR",
			path: "docs/guide.md",
			src:  []byte(strings.ReplaceAll(string(guide), "\n", "\r\n")),
			want: guideWant("docs/guide.md"),
		},
		{
			name: "front matter is intro",
			path: "ops/frontmatter.md",
			src:  readFixture(t, "frontmatter.md"),
			want: []retrieval.Chunk{
				section("ops/frontmatter.md", "(intro)", "",
					lines("---", "title: Runbook", "tags: [ops]", "---", "", "Read this first.", ""), 1, 7, 0),
				section("ops/frontmatter.md", "Rollback", "## Rollback",
					lines("## Rollback", "", "Run `make rollback`."), 8, 10, 0),
			},
		},
		{
			name: "front matter alone is intro",
			path: "a.md",
			src:  []byte("+++\ntitle = \"x\"\n+++\n# A\n"),
			want: []retrieval.Chunk{
				section("a.md", "(intro)", "", lines("+++", `title = "x"`, "+++"), 1, 3, 0),
				section("a.md", "A", "# A", "# A", 4, 4, 0),
			},
		},
		{
			name: "setext headings",
			path: "setext.md",
			src:  readFixture(t, "setext.md"),
			want: []retrieval.Chunk{
				section("setext.md", "Title", lines("Title", "====="),
					lines("Title", "=====", "", "Intro para.", ""), 1, 5, 0),
				section("setext.md", "Title > Part one", lines("Part one", "--------"),
					lines("Part one", "--------", "text", "", "---", ""), 6, 11, 0),
				section("setext.md", "ATX after", "# ATX after", "# ATX after", 12, 12, 0),
				section("setext.md", "ATX after > Multi line heading", lines("Multi line", "heading", "---"),
					lines("Multi line", "heading", "---", "body"), 13, 16, 0),
			},
		},
		{
			name: "blank intro is dropped",
			path: "a.md",
			src:  []byte("\n  \n# A\ntext\n"),
			want: []retrieval.Chunk{section("a.md", "A", "# A", lines("# A", "text"), 3, 4, 0)},
		},
		{
			name: "no H1-H3 is all intro",
			path: "a.md",
			src:  []byte("plain\n#### Deep\ntext"),
			want: []retrieval.Chunk{section("a.md", "(intro)", "", lines("plain", "#### Deep", "text"), 1, 3, 0)},
		},
		{
			name: "heading-only sections and H3 under H1",
			path: "a.md",
			src:  []byte("# A\n## B\n### C\n# D\n### E\n"),
			want: []retrieval.Chunk{
				section("a.md", "A", "# A", "# A", 1, 1, 0),
				section("a.md", "A > B", "## B", "## B", 2, 2, 0),
				section("a.md", "A > B > C", "### C", "### C", 3, 3, 0),
				section("a.md", "D", "# D", "# D", 4, 4, 0),
				section("a.md", "D > E", "### E", "### E", 5, 5, 0),
			},
		},
		{
			name: "H2 without H1, closing hashes, emphasis and links",
			path: "a.md",
			src:  []byte("## Use *the* [API](http://x) ##\nx\n### `run()` <br> flags\n"),
			want: []retrieval.Chunk{
				section("a.md", "Use the API", "## Use *the* [API](http://x) ##",
					lines("## Use *the* [API](http://x) ##", "x"), 1, 2, 0),
				section("a.md", "Use the API > run() flags", "### `run()` <br> flags",
					"### `run()` <br> flags", 3, 3, 0),
			},
		},
		{
			name: "headings in quotes, lists and indented code do not split",
			path: "a.md",
			src:  []byte("# A\n> # quoted\n- # listed\n\n    # indented code\n"),
			want: []retrieval.Chunk{
				section("a.md", "A", "# A", lines("# A", "> # quoted", "- # listed", "", "    # indented code"), 1, 5, 0),
			},
		},
		{
			name: "invalid UTF-8 is replaced",
			path: "a.md",
			src:  []byte("# Caf\xe9\n"),
			want: []retrieval.Chunk{section("a.md", "Caf\uFFFD", "# Caf\uFFFD", "# Caf\uFFFD", 1, 1, 0)},
		},
		{
			name: "section of 200 lines is one chunk",
			path: "long.md",
			src:  []byte(longDoc(199)),
			want: []retrieval.Chunk{
				section("long.md", "Changelog", "# Changelog",
					lines(append([]string{"# Changelog"}, entries(1, 199)...)...), 1, 200, 0),
				section("long.md", "Changelog > After", "## After", lines("## After", "done"), 201, 202, 0),
			},
		},
		{
			name: "long section windows begin with the heading",
			path: "long.md",
			src:  []byte(longDoc(250)),
			want: []retrieval.Chunk{
				section("long.md", "Changelog", "# Changelog",
					lines(append([]string{"# Changelog"}, entries(1, 119)...)...), 1, 120, 0),
				section("long.md", "Changelog", "# Changelog",
					lines(append([]string{"# Changelog"}, entries(120, 239)...)...), 121, 240, 1),
				section("long.md", "Changelog", "# Changelog",
					lines(append([]string{"# Changelog"}, entries(240, 250)...)...), 241, 251, 2),
				section("long.md", "Changelog > After", "## After", lines("## After", "done"), 252, 253, 0),
			},
		},
		{
			name: "empty document",
			path: "a.md",
			src:  []byte(" \r\n\n"),
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Chunk(tt.path, tt.src)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Chunk(%q) mismatch (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}
