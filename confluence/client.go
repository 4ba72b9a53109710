package confluence

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Flavours of Confluence, which decide the REST API and the auth scheme.
const (
	Cloud      = "cloud"      // Atlassian Cloud: REST v2, basic auth with email + API token
	DataCenter = "datacenter" // Data Center / Server: REST v1, bearer personal access token
)

// Options configure a Client. BaseURL, Flavour and Token are required.
type Options struct {
	// BaseURL is the site's Confluence root: "https://acme.atlassian.net/wiki"
	// for Cloud, "https://conf.example.com" or ".../confluence" (with the
	// context path) for Data Center. It must not hold credentials.
	BaseURL string
	Flavour string // Cloud or DataCenter
	Email   string // Cloud only: the Atlassian account of the API token
	Token   string // Cloud API token or Data Center personal access token; never logged or put in errors

	HTTPClient *http.Client // [a client with a 60s timeout per request]
	Log        *slog.Logger // [slog.Default()]
	// MaxRetries is how often a request is repeated after a 429, a 5xx or a
	// transport error [5]. Waits honour Retry-After (seconds or an HTTP date);
	// without it they back off exponentially from 1s with jitter, up to 60s.
	MaxRetries int
	// MaxWait is the longest single wait; a longer Retry-After fails the
	// request at once instead of blocking a sync for hours [5m].
	MaxWait time.Duration
	// Sleep waits d or until ctx ends [a timer]; tests replace it to record
	// the waits without taking them.
	Sleep func(ctx context.Context, d time.Duration) error
	// PageSize is the limit asked for on list requests [v2: 250, the API's
	// maximum; v1: 100]. Servers may return fewer; the client follows
	// _links.next rather than counting.
	PageSize int
	// FetchBatch is how many page bodies one request asks for, by id [50].
	FetchBatch int
}

// Client talks to one Confluence site. It is safe for concurrent use.
type Client struct {
	opt    Options // Token cleared: it lives in auth and token only
	base   string  // BaseURL without a trailing slash
	origin string  // scheme://host of BaseURL: v2 next links are rooted there
	auth   secret  // the Authorization header value
	token  secret  // the token alone, to scrub echoes of it
	log    *slog.Logger
}

// String, GoString and LogValue describe the client without its
// credentials, so that no format verb or log line can print them.
func (c *Client) String() string {
	return fmt.Sprintf("confluence.Client{Flavour:%s BaseURL:%s}", c.opt.Flavour, c.base)
}

func (c *Client) GoString() string     { return c.String() }
func (c *Client) LogValue() slog.Value { return slog.StringValue(c.String()) }

// String, GoString and LogValue print Options with the token redacted.
func (o Options) String() string {
	tok := ""
	if o.Token != "" {
		tok = "[redacted]"
	}
	return fmt.Sprintf("confluence.Options{BaseURL:%s Flavour:%s Email:%s Token:%s}", redact(o.BaseURL), o.Flavour, o.Email, tok)
}

func (o Options) GoString() string     { return o.String() }
func (o Options) LogValue() slog.Value { return slog.StringValue(o.String()) }

// secret is a credential that prints as "[redacted]", so that a Client
// formatted with %+v or logged cannot leak it.
type secret string

func (secret) String() string                 { return "[redacted]" }
func (secret) GoString() string               { return "[redacted]" }
func (secret) LogValue() slog.Value           { return slog.StringValue("[redacted]") }
func (s secret) reveal() string               { return string(s) }
func (s secret) MarshalText() ([]byte, error) { return []byte("[redacted]"), nil }

// NewClient checks opt and returns a client. Errors name the bad option; they
// never contain the token.
func NewClient(opt Options) (*Client, error) {
	u, err := url.Parse(opt.BaseURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("confluence: base url %q: want an absolute http(s) URL", redact(opt.BaseURL))
	}
	if u.User != nil {
		return nil, errors.New("confluence: base url must not hold credentials; pass the token through the environment")
	}
	c := &Client{opt: opt, base: strings.TrimRight(u.Scheme+"://"+u.Host+u.Path, "/"), origin: u.Scheme + "://" + u.Host}
	switch opt.Flavour {
	case Cloud:
		if opt.Email == "" || opt.Token == "" {
			return nil, errors.New("confluence: cloud needs an email and an API token")
		}
		c.auth = secret("Basic " + base64.StdEncoding.EncodeToString([]byte(opt.Email+":"+opt.Token)))
	case DataCenter:
		if opt.Token == "" {
			return nil, errors.New("confluence: datacenter needs a personal access token")
		}
		c.auth = secret("Bearer " + opt.Token)
	default:
		return nil, fmt.Errorf("confluence: flavour %q: want cloud or datacenter", opt.Flavour)
	}
	c.token, c.opt.Token = secret(opt.Token), ""
	if c.opt.HTTPClient == nil {
		c.opt.HTTPClient = &http.Client{Timeout: 60 * time.Second}
	}
	if c.opt.Log == nil {
		c.opt.Log = slog.Default()
	}
	c.log = c.opt.Log
	if c.opt.MaxRetries == 0 {
		c.opt.MaxRetries = 5
	}
	if c.opt.MaxWait == 0 {
		c.opt.MaxWait = 5 * time.Minute
	}
	if c.opt.Sleep == nil {
		c.opt.Sleep = sleep
	}
	if c.opt.PageSize == 0 {
		c.opt.PageSize = 100
		if opt.Flavour == Cloud {
			c.opt.PageSize = 250
		}
	}
	if c.opt.FetchBatch == 0 {
		c.opt.FetchBatch = 50
	}
	return c, nil
}

// Flavour is Cloud or DataCenter.
func (c *Client) Flavour() string { return c.opt.Flavour }

// BaseURL is the configured base URL without a trailing slash.
func (c *Client) BaseURL() string { return c.base }

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// An HTTPError is a request that failed for good: a status that is not
// retried (401, 403, 404, 400...), or a 429/5xx that outlasted MaxRetries.
type HTTPError struct {
	Op         string        // what was being done: `list pages of space OPS`, `fetch page 98391 "Deploy runbook"`
	Method     string        // GET, POST
	Path       string        // request path and query, without the host
	Status     int           // HTTP status
	Message    string        // the server's message, at most 300 bytes, "" when none
	RetryAfter time.Duration // the answer's Retry-After, 0 when none

	hasRetryAfter bool // the answer had a Retry-After (which may be 0)
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("confluence: %s: %s %s: status %d %s", e.Op, e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.hasRetryAfter {
		msg += fmt.Sprintf(" (Retry-After %s)", e.RetryAfter)
	}
	return msg
}

// Retryable reports a rate limit or server error: a later run may succeed.
func (e *HTTPError) Retryable() bool { return retryable(e.Status) }

// Reason is a short label for metrics: "rate_limited", "server_error",
// "unauthorized", "forbidden", "not_found", "bad_request".
func (e *HTTPError) Reason() string {
	switch {
	case e.Status == http.StatusTooManyRequests:
		return "rate_limited"
	case e.Status >= 500:
		return "server_error"
	case e.Status == http.StatusUnauthorized:
		return "unauthorized"
	case e.Status == http.StatusForbidden:
		return "forbidden"
	case e.Status == http.StatusNotFound:
		return "not_found"
	}
	return "bad_request"
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusInternalServerError ||
		status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout
}

// maxBody caps a response body: a page of 250 results with storage bodies
// stays well under it.
const maxBody = 64 << 20

// do sends a request to rawURL (absolute, on this site) and returns the body
// of a 2xx answer. 429, 5xx and transport errors are retried as Options say;
// the error of the last attempt is returned, an *HTTPError for a status. op
// names the operation in errors and logs; neither ever holds a credential.
func (c *Client) do(ctx context.Context, op, method, rawURL string, body []byte) ([]byte, http.Header, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, nil, fmt.Errorf("confluence: %s: bad url: %w", op, err)
	}
	where := u.RequestURI()
	for attempt := 0; ; attempt++ {
		data, hdr, err := c.once(ctx, op, method, rawURL, where, body)
		if err == nil {
			return data, hdr, nil
		}
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("confluence: %s: %w", op, context.Cause(ctx))
		}
		wait, again := c.retryWait(err, attempt)
		if !again {
			return nil, nil, err
		}
		c.log.Warn("confluence request failed, retrying", "op", op, "err", err, "wait", wait, "attempt", attempt+1)
		if err := c.opt.Sleep(ctx, wait); err != nil {
			return nil, nil, fmt.Errorf("confluence: %s: %w", op, context.Cause(ctx))
		}
	}
}

// once sends one request: an *HTTPError for a status other than 2xx, a
// plain (scrubbed) error for a transport failure.
func (c *Client) once(ctx context.Context, op, method, rawURL, where string, body []byte) ([]byte, http.Header, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, rd)
	if err != nil {
		return nil, nil, fmt.Errorf("confluence: %s: %w", op, err)
	}
	req.Header.Set("Authorization", c.auth.reveal())
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.opt.HTTPClient.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("confluence: %s: %s %s: %w", op, method, where, c.scrub(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if resp.StatusCode/100 == 2 {
		if err != nil {
			return nil, nil, fmt.Errorf("confluence: %s: %s %s: read answer: %w", op, method, where, c.scrub(err))
		}
		return data, resp.Header, nil
	}
	herr := &HTTPError{Op: op, Method: method, Path: where, Status: resp.StatusCode, Message: c.scrub(errors.New(serverMessage(data))).Error()}
	herr.RetryAfter, herr.hasRetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	return nil, nil, herr
}

// retryWait says whether err is worth another attempt, and after how long:
// a rate limit or server error, or a transport error, while attempts are
// left, waiting Retry-After when the server named it (unless that exceeds
// MaxWait) and backing off otherwise.
func (c *Client) retryWait(err error, attempt int) (time.Duration, bool) {
	if attempt >= c.opt.MaxRetries {
		return 0, false
	}
	var h *HTTPError
	if !errors.As(err, &h) {
		return backoff(attempt), true
	}
	switch {
	case !h.Retryable():
		return 0, false
	case !h.hasRetryAfter:
		return backoff(attempt), true
	case h.RetryAfter > c.opt.MaxWait:
		return 0, false
	}
	return h.RetryAfter, true
}

// backoff is the wait before retry attempt+1 when the server named none:
// 1s, 2s, 4s, ... up to 60s, each with up to 20% jitter.
func backoff(attempt int) time.Duration {
	d := time.Second << min(attempt, 6)
	d = min(d, time.Minute)
	return d + time.Duration(rand.Int64N(int64(d)/5+1))
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (RFC 9110 §10.2.3).
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// scrub removes the credentials from an error's text, in case a proxy or
// server echoes a request header back.
func (c *Client) scrub(err error) error {
	msg := err.Error()
	clean := msg
	for _, s := range []string{c.auth.reveal(), strings.TrimPrefix(strings.TrimPrefix(c.auth.reveal(), "Basic "), "Bearer "), c.token.reveal()} {
		if len(s) >= 4 {
			clean = strings.ReplaceAll(clean, s, "[redacted]")
		}
	}
	if clean == msg {
		return err
	}
	return errors.New(clean)
}

// redact hides the user information of a URL ("user:pass@").
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = url.User("xxxxx")
	return u.String()
}
