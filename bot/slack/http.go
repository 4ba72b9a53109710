package slack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	slackgo "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// Routes of the HTTP transport, to enter as the Request URLs of the Slack
// app (Event Subscriptions, Slash Commands, Interactivity).
const (
	EventsPath        = "/slack/events"
	CommandsPath      = "/slack/commands"
	InteractivityPath = "/slack/interactivity"
)

// maxBody bounds a request body, read whole before its signature is
// checked: Slack's events and commands are a few KB, and interaction
// payloads carry the message's blocks (at most 50).
const maxBody = 1 << 20

// maxSkew is how far a request's X-Slack-Request-Timestamp may be from
// now, either way (api.slack.com/authentication/verifying-requests-from-slack;
// slack-go's verifier uses the same window).
const maxSkew = 5 * time.Minute

// Reasons a request is refused (Config.OnReject).
const (
	RejectMissingSignature = "missing_signature" // no X-Slack-Signature or X-Slack-Request-Timestamp
	RejectStaleTimestamp   = "stale_timestamp"   // the timestamp unparsable or more than 5 minutes off
	RejectBadSignature     = "bad_signature"     // the HMAC over the body does not match
	RejectTooLarge         = "too_large"         // the body is over 1 MiB
)

// Routes mounts the Events API, slash command and interactivity endpoints on
// mux. Every request is verified against the signing secret over its raw
// body (api.slack.com/authentication/verifying-requests-from-slack): a bad or
// missing signature, or a timestamp more than 5 minutes off, gets 401 and
// nothing is done; the headers are judged before any of the body is read.
// Valid requests are acknowledged at once; the answers run in the
// background.
func (b *Bot) Routes(mux *http.ServeMux) {
	mux.Handle("POST "+EventsPath, b.verified(EventsPath, b.serveEvents))
	mux.Handle("POST "+CommandsPath, b.verified(CommandsPath, b.serveCommand))
	mux.Handle("POST "+InteractivityPath, b.verified(InteractivityPath, b.serveInteraction))
}

// verified judges the signature headers, then reads at most maxBody bytes
// of the body, checks its signature and calls next with the verified
// bytes.
func (b *Bot) verified(route string, next func(http.ResponseWriter, *http.Request, []byte)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reject := func(code int, reason, msg string, err error) {
			b.log.Warn("rejected Slack request", "path", route, "remote", r.RemoteAddr, "status", code, "reason", reason, "err", err)
			if b.cfg.OnReject != nil {
				b.cfg.OnReject(route, reason)
			}
			http.Error(w, msg, code)
		}
		if reason, err := b.judgeHeaders(r.Header); err != nil {
			reject(http.StatusUnauthorized, reason, "invalid request signature", err)
			return
		}
		if r.ContentLength > maxBody {
			reject(http.StatusRequestEntityTooLarge, RejectTooLarge, "request body too large", fmt.Errorf("Content-Length %d over %d bytes", r.ContentLength, maxBody))
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			reject(http.StatusRequestEntityTooLarge, RejectTooLarge, "request body too large or unreadable", err)
			return
		}
		if err := b.verify(r.Header, body); err != nil {
			reject(http.StatusUnauthorized, RejectBadSignature, "invalid request signature", err)
			return
		}
		next(w, r, body)
	})
}

// judgeHeaders checks, before the body is read, that a request carries
// both signature headers and a timestamp within maxSkew of now; it returns
// the Reject reason with the error.
func (b *Bot) judgeHeaders(h http.Header) (string, error) {
	ts, sig := h.Get("X-Slack-Request-Timestamp"), h.Get("X-Slack-Signature")
	if ts == "" || sig == "" {
		return RejectMissingSignature, errors.New("missing X-Slack-Signature or X-Slack-Request-Timestamp")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return RejectStaleTimestamp, fmt.Errorf("X-Slack-Request-Timestamp %q is not Unix seconds", ts)
	}
	if skew := b.cfg.Now().Sub(time.Unix(sec, 0)); skew > maxSkew || skew < -maxSkew {
		return RejectStaleTimestamp, fmt.Errorf("X-Slack-Request-Timestamp is %s off, more than %s", skew.Round(time.Second), maxSkew)
	}
	return "", nil
}

// verify checks X-Slack-Signature over the raw body; slack-go's verifier
// rejects timestamps more than 5 minutes from now and compares in constant
// time.
func (b *Bot) verify(h http.Header, body []byte) error {
	sv, err := slackgo.NewSecretsVerifier(h, b.cfg.SigningSecret)
	if err != nil {
		return err
	}
	if _, err := sv.Write(body); err != nil {
		return err
	}
	return sv.Ensure()
}

func (b *Bot) serveEvents(w http.ResponseWriter, r *http.Request, body []byte) {
	ev, err := slackevents.ParseEvent(body, slackevents.OptionNoVerifyToken())
	if err != nil {
		// Signed by Slack, so a retry would not parse either: ack it.
		b.log.Warn("unparsable Slack event ignored", "err", err)
		w.WriteHeader(http.StatusOK)
		return
	}
	switch ev.Type {
	case slackevents.URLVerification:
		if uv, ok := ev.Data.(*slackevents.EventsAPIURLVerificationEvent); ok {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, uv.Challenge)
			return
		}
	case slackevents.CallbackEvent:
		if cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent); ok {
			if n := r.Header.Get("X-Slack-Retry-Num"); n != "" {
				b.log.Info("slack retried an event", "event_id", cb.EventID, "retry_num", n, "reason", r.Header.Get("X-Slack-Retry-Reason"))
			}
			b.dispatch(cb.EventID, ev.InnerEvent)
		}
	case slackevents.AppRateLimited:
		b.log.Error("slack is dropping events: the app exceeded its event rate limit", "type", ev.Type)
	}
	w.WriteHeader(http.StatusOK)
}

func (b *Bot) serveCommand(w http.ResponseWriter, r *http.Request, body []byte) {
	// SlashCommandParse reads the form from the body, which verified has
	// already consumed: give it the verified bytes.
	r.Body = io.NopCloser(bytes.NewReader(body))
	cmd, err := slackgo.SlashCommandParse(r)
	if err != nil {
		http.Error(w, "bad slash command form", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(b.command(cmd))
}

func (b *Bot) serveInteraction(w http.ResponseWriter, r *http.Request, body []byte) {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		http.Error(w, "bad interaction form", http.StatusBadRequest)
		return
	}
	var cb slackgo.InteractionCallback
	if err := json.Unmarshal([]byte(form.Get("payload")), &cb); err != nil {
		http.Error(w, "bad interaction payload", http.StatusBadRequest)
		return
	}
	b.interact(cb)
	w.WriteHeader(http.StatusOK)
}
