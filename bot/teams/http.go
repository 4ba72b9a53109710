package teams

import (
	"errors"
	"io"
	"net/http"
)

// MessagesPath is the route of the bot's messaging endpoint: enter
// https://<host>/api/messages as the Azure Bot's messaging endpoint.
const MessagesPath = "/api/messages"

// maxBody bounds an activity, read whole before it is authenticated; Teams
// messages are capped far below it (about 100 KB with attachments).
const maxBody = 1 << 20

// Routes mounts the messaging endpoint on mux. Every request must carry a
// valid Bot Framework token for this app and this activity (see
// authenticate): otherwise it gets 401 and nothing is done (503 when the
// signing keys cannot be fetched at all). Valid activities are acknowledged
// with 200 at once; answers run in the background. A search command of the
// message extension is answered in the response (invoke).
func (b *Bot) Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST "+MessagesPath, b.serveMessages)
}

func (b *Bot) serveMessages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		http.Error(w, "request body too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	a, err := b.authenticate(r.Context(), r.Header, body)
	if err != nil {
		var ae *authError
		if !errors.As(err, &ae) {
			ae = &authError{Status: http.StatusUnauthorized, Reason: "invalid request", Err: err}
		}
		if ae.Status == http.StatusServiceUnavailable {
			b.log.Error("teams request not checked: the signing keys are unavailable", "remote", r.RemoteAddr, "err", ae.Err)
		} else {
			b.log.Warn("rejected Teams request", "status", ae.Status, "reason", ae.Reason, "remote", r.RemoteAddr, "err", ae.Err)
		}
		http.Error(w, http.StatusText(ae.Status), ae.Status)
		return
	}
	if a.Type == "invoke" {
		b.invoke(w, r, a)
		return
	}
	b.dispatch(a)
	w.WriteHeader(http.StatusOK)
}

// invoke answers an invoke activity in its HTTP response, which Teams
// waits for: a search command (composeExtension/query) gets its results;
// others get 501, as the Bot Framework SDKs answer invokes they do not
// handle.
func (b *Bot) invoke(w http.ResponseWriter, r *http.Request, a *Activity) {
	if a.Name != queryInvoke {
		b.log.Debug("invoke ignored", "name", a.Name, "activity_id", a.ID)
		http.Error(w, http.StatusText(http.StatusNotImplemented), http.StatusNotImplemented)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(marshal(queryResponse{ComposeExtension: b.query(r.Context(), a)}))
}
