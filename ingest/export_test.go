package ingest

// EmbedBatch and MaxWriting are the stream's batch size and how many
// batches it writes at once, for the memory test's bound.
const (
	EmbedBatch = embedBatch
	MaxWriting = maxWriting
)

// OnStreamHeld sets the hook that gets, after each stream, the most chunks
// it held at once; nil unsets it.
func OnStreamHeld(f func(max int64)) { streamHeld = f }
