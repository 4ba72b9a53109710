// Package httpretry is ragbot's one policy for outbound HTTP calls that may
// fail for a while: which failures are tried again, how long to wait before
// each retry (the server's Retry-After, else an exponential backoff), when
// to give up, and the one error type that reports a non-2xx answer.
//
// A client builds its request, sends it, and turns a non-2xx answer into a
// *StatusError (see NewStatusError); Policy.Do repeats that attempt as the
// policy says. Do never builds messages of its own: the client wraps what
// Do returns, so each error still names the page, channel or model at hand.
package httpretry
