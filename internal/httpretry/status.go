package httpretry

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// A Reason is why a call failed, from a small fixed set, so that it can be a
// metric label (Prometheus labels must have bounded values).
type Reason string

// Reasons of a failed answer. They follow RFC 9110 §15.
const (
	RateLimited  Reason = "rate_limited" // 429 Too Many Requests
	ServerError  Reason = "server_error" // 5xx
	Timeout      Reason = "timeout"      // 408, or a deadline that ran out
	Unauthorized Reason = "unauthorized" // 401: the credential is wrong or lapsed
	Forbidden    Reason = "forbidden"    // 403: the credential lacks a permission
	NotFound     Reason = "not_found"    // 404
	ClientError  Reason = "client_error" // any other 4xx: the request itself is wrong
	Unexpected   Reason = "unexpected"   // a 1xx or 3xx that the client does not follow
)

// StatusReason is the Reason of an answer with HTTP status code status.
func StatusReason(status int) Reason {
	switch {
	case status == http.StatusTooManyRequests:
		return RateLimited
	case status == http.StatusRequestTimeout:
		return Timeout
	case status == http.StatusUnauthorized:
		return Unauthorized
	case status == http.StatusForbidden:
		return Forbidden
	case status == http.StatusNotFound:
		return NotFound
	case status >= 500:
		return ServerError
	case status >= 400:
		return ClientError
	}
	return Unexpected
}

// StatusOf is the Status of the *StatusError in err's chain, 0 when there
// is none.
func StatusOf(err error) int {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status
	}
	return 0
}

// A StatusError is an answer with a status other than 2xx. Clients wrap it
// with what they were doing ("confluence: fetch page 98391: %w"); callers
// find it with errors.As.
type StatusError struct {
	Method     string        // GET, POST, PUT
	URL        string        // what was asked for, without credentials: a URL or a path and query
	Status     int           // HTTP status code
	Reason     Reason        // StatusReason(Status)
	Code       string        // the API's own error code when its body names one ("MessageSizeTooBig"), else ""
	Message    string        // the server's message, cut and free of credentials, "" when none
	RetryAfter time.Duration // the server's Retry-After (see ParseRetryAfter), 0 when none
}

// NewStatusError describes resp, a non-2xx answer to method url, with the
// server's code and message. The Retry-After is read against now.
func NewStatusError(resp *http.Response, method, url, code, message string, now time.Time) *StatusError {
	return &StatusError{Method: method, URL: url, Status: resp.StatusCode, Reason: StatusReason(resp.StatusCode),
		Code: code, Message: message, RetryAfter: ParseRetryAfter(resp.Header, now)}
}

// Error reads "GET /path: status 503 Service Unavailable: message
// (Retry-After 1s)", the code in parentheses after the status text when
// there is one.
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("status %d %s", e.Status, http.StatusText(e.Status))
	if what := strings.TrimSpace(e.Method + " " + e.URL); what != "" {
		msg = what + ": " + msg
	}
	if e.Code != "" {
		msg += " (" + e.Code + ")"
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf(" (Retry-After %s)", e.RetryAfter)
	}
	return msg
}
