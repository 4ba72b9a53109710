package slack

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"

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

// Routes mounts the Events API, slash command and interactivity endpoints on
// mux. Every request is verified against the signing secret over its raw
// body (api.slack.com/authentication/verifying-requests-from-slack): a bad or
// missing signature, or a timestamp more than 5 minutes off, gets 401 and
// nothing is done. Valid requests are acknowledged at once; the answers run
// in the background.
func (b *Bot) Routes(mux *http.ServeMux) {
	mux.Handle("POST "+EventsPath, b.verified(b.serveEvents))
	mux.Handle("POST "+CommandsPath, b.verified(b.serveCommand))
	mux.Handle("POST "+InteractivityPath, b.verified(b.serveInteraction))
}

// verified reads the body, checks its signature and calls next with the
// verified bytes.
func (b *Bot) verified(next func(http.ResponseWriter, *http.Request, []byte)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			http.Error(w, "request body too large or unreadable", http.StatusRequestEntityTooLarge)
			return
		}
		if err := b.verify(r.Header, body); err != nil {
			b.log.Warn("rejected unsigned Slack request", "path", r.URL.Path, "remote", r.RemoteAddr, "reason", err)
			http.Error(w, "invalid request signature", http.StatusUnauthorized)
			return
		}
		next(w, r, body)
	})
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
	writeJSON(w, b.command(cmd))
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

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
