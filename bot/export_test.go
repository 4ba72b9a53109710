package bot

import "time"

// WithTimer returns c with the wait timer replaced by after, so that tests
// end queue waits on cue.
func WithTimer(c AdmissionConfig, after func(time.Duration) (<-chan time.Time, func() bool)) AdmissionConfig {
	c.after = after
	return c
}
