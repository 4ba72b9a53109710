// Package markdown splits markdown documents into heading sections, the doc
// chunks of the index: ingest reads a file, Chunk cuts it at every H1-H3
// heading (goldmark's CommonMark parser finds the headings, so a "#" line in
// a fenced code block never splits), and the pipeline embeds and upserts the
// sections like any other retrieval.Chunk. Section boundaries follow the
// eval's matching rules (shared/eval/README.md, "Question format").
package markdown
