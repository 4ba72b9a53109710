package weaviate

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"
)

// FailoverDialTimeout bounds connecting to one node before the next is
// tried: loopback and LAN connects take milliseconds, and a node that is
// down on another host otherwise holds each request for the dialer's 30 s
// (net/http.DefaultTransport). A caller bounding a request itself allows
// this much for each node listed before the one that answers.
const FailoverDialTimeout = 3 * time.Second

// failover sends each request to one of several nodes of one Weaviate
// cluster: the node that last answered, else the next one that accepts a
// connection. Any node coordinates replicated reads and writes (Weaviate
// docs, "Replication architecture"), so the nodes are interchangeable for
// ragbot's requests. Only a failure to connect moves on: the request was
// not sent, so retrying it elsewhere is safe even for a write; an error
// after sending (a timeout, a reset, a 5xx) is returned as it is.
type failover struct {
	next  http.RoundTripper
	nodes []*url.URL // scheme and host of each node
	cur   atomic.Int32
}

func newFailover(urls []string) (*failover, error) {
	f := &failover{}
	for _, u := range urls {
		p, err := url.Parse(u)
		if err != nil || p.Host == "" {
			return nil, fmt.Errorf("weaviate url %q: want scheme://host:port", u)
		}
		f.nodes = append(f.nodes, p)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: FailoverDialTimeout, KeepAlive: 30 * time.Second}).DialContext
	f.next = t
	return f, nil
}

func (f *failover) RoundTrip(r *http.Request) (*http.Response, error) {
	start := int(f.cur.Load())
	var errs []error
	for i := range f.nodes {
		n := (start + i) % len(f.nodes)
		req := r.Clone(r.Context())
		req.URL.Scheme, req.URL.Host, req.Host = f.nodes[n].Scheme, f.nodes[n].Host, ""
		if i > 0 && r.Body != nil && r.Body != http.NoBody {
			if r.GetBody == nil {
				break // the body cannot be sent twice
			}
			body, err := r.GetBody()
			if err != nil {
				return nil, err
			}
			req.Body = body
		}
		resp, err := f.next.RoundTrip(req)
		if err == nil || !isDialError(err) {
			if err == nil && n != start {
				f.cur.Store(int32(n))
			}
			return resp, err
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("no Weaviate node accepts connections: %w", errors.Join(errs...))
}

// isDialError reports whether err is a failure to connect (refused,
// unreachable, dial timeout): nothing of the request was sent.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
