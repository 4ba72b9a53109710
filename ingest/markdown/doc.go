// Package markdown splits markdown documents into heading sections, the doc
// chunks of the index: ingest reads a file, Chunk cuts it at every H1-H3
// heading (found by goldmark's CommonMark parser, so a "#" line in a fenced
// code block never splits), and the pipeline embeds and upserts the sections
// like any other retrieval.Chunk.
package markdown
