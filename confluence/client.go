package confluence

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/internal/httpretry"
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
	Flavour string        // Cloud or DataCenter
	Email   string        // Cloud only: the Atlassian account of the API token
	Token   config.Secret // Cloud API token or Data Center personal access token; never logged or put in errors

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
	opt    Options       // Token cleared: it lives in auth and token only
	base   string        // BaseURL without a trailing slash
	origin string        // scheme://host of BaseURL: v2 next links are rooted there
	auth   config.Secret // the Authorization header value
	token  config.Secret // the token alone, to scrub echoes of it
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
	return fmt.Sprintf("confluence.Options{BaseURL:%s Flavour:%s Email:%s Token:%s}", redact(o.BaseURL), o.Flavour, o.Email, o.Token)
}

func (o Options) GoString() string     { return o.String() }
func (o Options) LogValue() slog.Value { return slog.StringValue(o.String()) }

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
		c.auth = config.Secret("Basic " + base64.StdEncoding.EncodeToString([]byte(opt.Email+":"+opt.Token.Reveal())))
	case DataCenter:
		if opt.Token == "" {
			return nil, errors.New("confluence: datacenter needs a personal access token")
		}
		c.auth = config.Secret("Bearer " + opt.Token.Reveal())
	default:
		return nil, fmt.Errorf("confluence: flavour %q: want cloud or datacenter", opt.Flavour)
	}
	c.token, c.opt.Token = opt.Token, ""
	c.opt.HTTPClient = cmp.Or(c.opt.HTTPClient, &http.Client{Timeout: 60 * time.Second})
	c.opt.Log = cmp.Or(c.opt.Log, slog.Default())
	c.log = c.opt.Log
	c.opt.MaxRetries = cmp.Or(c.opt.MaxRetries, 5)
	c.opt.MaxWait = cmp.Or(c.opt.MaxWait, 5*time.Minute)
	if c.opt.Sleep == nil {
		c.opt.Sleep = httpretry.Sleep
	}
	if c.opt.PageSize == 0 {
		c.opt.PageSize = 100
		if opt.Flavour == Cloud {
			c.opt.PageSize = 250
		}
	}
	c.opt.FetchBatch = cmp.Or(c.opt.FetchBatch, 50)
	return c, nil
}

// Flavour is Cloud or DataCenter.
func (c *Client) Flavour() string { return c.opt.Flavour }

// BaseURL is the configured base URL without a trailing slash.
func (c *Client) BaseURL() string { return c.base }

// An error answer is a *httpretry.StatusError wrapped with the operation:
// `confluence: fetch page 98391 "Deploy runbook": GET /wiki/api/v2/pages?id=98391:
// status 404 Not Found: Not Found page 98391 is gone`. Its Reason is the
// metric label; Retryable says whether a later run may succeed.

// Retryable reports whether err, an error of this client, is a rate limit,
// a server error or a network failure, which a later run may not meet: the
// statuses retried are 429, 500, 502, 503 and 504 (Atlassian's
// rate-limiting guide asks clients to back off on 429 and 503).
func Retryable(err error) bool {
	var se *httpretry.StatusError
	if !errors.As(err, &se) {
		return true
	}
	switch se.Status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// maxBody caps a response body: a page of 250 results with storage bodies
// stays well under it.
const maxBody = 64 << 20

// do sends a request to rawURL (absolute, on this site) and returns the body
// of a 2xx answer. 429, 5xx and transport errors are retried as Options say;
// the error of the last attempt is returned, a *httpretry.StatusError for a
// status. op names the operation in errors and logs; neither ever holds a
// credential.
func (c *Client) do(ctx context.Context, op, method, rawURL string, body []byte) ([]byte, http.Header, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, nil, fmt.Errorf("confluence: %s: bad url: %w", op, err)
	}
	where := u.RequestURI()
	p := httpretry.Policy{
		MaxRetries: c.opt.MaxRetries,
		Retryable:  Retryable,
		Backoff:    httpretry.Exponential(time.Second, time.Minute, 0.2),
		MaxWait:    c.opt.MaxWait,
		Sleep:      c.opt.Sleep,
		OnRetry: func(err error, wait time.Duration, retry int) {
			c.log.Warn("confluence request failed, retrying", "op", op, "err", err, "wait", wait, "attempt", retry)
		},
	}
	var data []byte
	var hdr http.Header
	err = p.Do(ctx, func(ctx context.Context) (err error) {
		data, hdr, err = c.once(ctx, op, method, rawURL, where, body)
		return err
	})
	var we *httpretry.WaitError
	switch {
	case errors.As(err, &we) && we.Cause != nil:
		return nil, nil, fmt.Errorf("confluence: %s: %w", op, we.Cause)
	case we != nil:
		return nil, nil, we.Err // a Retry-After beyond MaxWait: the answer says it all
	case err != nil:
		return nil, nil, err
	}
	return data, hdr, nil
}

// once sends one request: a *httpretry.StatusError for a status other than
// 2xx, a plain (scrubbed) error for a transport failure.
func (c *Client) once(ctx context.Context, op, method, rawURL, where string, body []byte) ([]byte, http.Header, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, rd)
	if err != nil {
		return nil, nil, fmt.Errorf("confluence: %s: %w", op, err)
	}
	req.Header.Set("Authorization", c.auth.Reveal())
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
	msg := c.scrub(errors.New(serverMessage(data))).Error()
	return nil, nil, fmt.Errorf("confluence: %s: %w", op, httpretry.NewStatusError(resp, method, where, "", msg, time.Now()))
}

// scrub removes the credentials from an error's text, in case a proxy or
// server echoes a request header back.
func (c *Client) scrub(err error) error {
	msg := err.Error()
	clean := msg
	for _, s := range []string{c.auth.Reveal(), strings.TrimPrefix(strings.TrimPrefix(c.auth.Reveal(), "Basic "), "Bearer "), c.token.Reveal()} {
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
