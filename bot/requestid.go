package bot

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

// RequestID returns the short id that ties one answer's log lines to the
// message its user sees: six hex digits of the SHA-256 of the platform's
// delivery id, so every retry of one event gets the same id, or random ones
// when there is no delivery id. It is for finding a log line from a
// screenshot, not a unique key.
func RequestID(deliveryID string) string {
	if deliveryID == "" {
		var b [3]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error (Go 1.24+)
		return hex.EncodeToString(b[:])
	}
	sum := sha256.Sum256([]byte(deliveryID))
	return hex.EncodeToString(sum[:3])
}
