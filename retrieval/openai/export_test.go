package openai

import (
	"context"
	"time"
)

// SetOpenAISleep replaces the retry wait of e, so tests record the waits
// instead of sleeping.
func SetOpenAISleep(e *Embedder, sleep func(context.Context, time.Duration) error) {
	e.api.sleep = sleep
}
