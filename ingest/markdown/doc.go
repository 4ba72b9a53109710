// Package markdown splits markdown documents into heading sections, the doc
// chunks of the index: ingest reads a file, Chunk cuts it at every H1-H3
// heading (goldmark's CommonMark parser finds the headings, so a "#" line in
// a fenced code block never splits), and the pipeline embeds and upserts the
// sections like any other retrieval.Chunk. A section runs from its heading
// line to the line before the next H1-H3 heading (or the end of the file),
// H4+ subsections stay in their enclosing section, and the text before the
// first heading is the section "(intro)": the line ranges that eval
// questions expect for markdown answers (package retrieval/eval).
package markdown
