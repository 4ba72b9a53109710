package httpretry

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxSeconds bounds a delay read from a header, so that "1e300" or "Inf"
// cannot overflow a time.Duration; it is about 31 years.
const maxSeconds = 1e9

// ParseRetryAfter is how long the server asked the client to wait before
// trying again, read from h against now. It reads OpenAI's "retry-after-ms"
// first (milliseconds, what the official openai-python client reads first),
// then RFC 9110 §10.2.3 Retry-After: delay-seconds (a fraction is accepted)
// or an HTTP date. It is 0 when neither is present, readable or in the
// future: "no advice", which Policy.Do answers with its backoff.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms > 0 && ms < maxSeconds*1000 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < maxSeconds { // also false for NaN
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}
