package teamsfake

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxActivity is Teams' limit on a bot message: 40 KB, counted in UTF-16
// over the whole activity (Teams docs, 'Format your bot messages').
const MaxActivity = 40 * 1024

func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	now := s.opts.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	fail := func(status int, code, desc string) {
		s.tokenCalls = append(s.tokenCalls, TokenCall{At: now, Status: status})
		writeJSON(w, status, map[string]any{"error": code, "error_description": desc, "error_codes": []int{7000215}})
	}
	if len(s.tokenFails) > 0 {
		f := s.tokenFails[0]
		s.tokenFails = s.tokenFails[1:]
		fail(f.status, f.code, f.desc)
		return
	}
	switch {
	case r.PathValue("tenant") != Tenant:
		fail(http.StatusBadRequest, "invalid_request", "AADSTS90002: Tenant '"+r.PathValue("tenant")+"' not found.")
		return
	case r.PostForm.Get("grant_type") != "client_credentials":
		fail(http.StatusBadRequest, "unsupported_grant_type", "AADSTS70003: The app requested an unsupported grant type.")
		return
	case r.PostForm.Get("client_id") != AppID:
		fail(http.StatusBadRequest, "unauthorized_client", "AADSTS700016: Application not found in the directory.")
		return
	case r.PostForm.Get("client_secret") != AppPassword:
		fail(http.StatusUnauthorized, "invalid_client", "AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.")
		return
	case r.PostForm.Get("scope") != "https://api.botframework.com/.default":
		fail(http.StatusBadRequest, "invalid_scope", "AADSTS70011: The provided value for the input parameter 'scope' is not valid.")
		return
	}
	tok := "eyJfake." + newID(24)
	s.tokens[tok] = now.Add(s.opts.TokenLifetime)
	s.tokenCalls = append(s.tokenCalls, TokenCall{At: now, Status: http.StatusOK})
	life := int(s.opts.TokenLifetime.Seconds())
	writeJSON(w, http.StatusOK, map[string]any{"token_type": "Bearer", "expires_in": life, "ext_expires_in": life, "access_token": tok})
}

// serveActivity is the connector: POST …/activities/{id} replies to id,
// POST …/activities posts a new message, PUT …/activities/{id} replaces the
// bot's message id.
func (s *Server) serveActivity(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	call := Call{Method: r.Method, Path: r.URL.EscapedPath(), Conversation: r.PathValue("conv"), ActivityID: r.PathValue("id"),
		Token: tok, Size: utf16Size(body), At: s.opts.Now()}
	s.mu.Lock()
	defer s.mu.Unlock()
	answer := func(status int, v any) {
		call.Status = status
		s.calls = append(s.calls, call)
		writeJSON(w, status, v)
	}
	errBody := func(code, msg string) map[string]any {
		return map[string]any{"error": map[string]string{"code": code, "message": msg}}
	}
	if exp, ok := s.tokens[tok]; !ok || !call.At.Before(exp) {
		answer(http.StatusUnauthorized, errBody("Unauthorized", "Authorization has been denied for this request."))
		return
	}
	if d := s.limits[r.Method]; len(d) > 0 {
		s.limits[r.Method] = d[1:]
		w.Header().Set("Retry-After", strconv.Itoa(d[0]))
		answer(http.StatusTooManyRequests, errBody("Throttled", "Too many requests."))
		return
	}
	if f := s.fails[r.Method]; len(f) > 0 {
		s.fails[r.Method] = f[1:]
		answer(f[0].status, errBody(f[0].code, "injected failure"))
		return
	}
	if call.Size > MaxActivity {
		answer(http.StatusRequestEntityTooLarge, errBody("MessageSizeTooBig", "Message size too large."))
		return
	}
	var a struct {
		Type        string          `json:"type"`
		Text        string          `json:"text"`
		TextFormat  string          `json:"textFormat"`
		Summary     string          `json:"summary"`
		ReplyToID   string          `json:"replyToId"`
		Attachments json.RawMessage `json:"attachments"`
	}
	if err := json.Unmarshal(body, &a); err != nil || a.Type != "message" {
		answer(http.StatusBadRequest, errBody("BadArgument", "Activity is not a message."))
		return
	}
	if a.Text == "" && len(a.Attachments) == 0 {
		answer(http.StatusBadRequest, errBody("BadArgument", "Activity has neither text nor attachments."))
		return
	}
	if r.Method == http.MethodPut {
		for _, m := range s.msgs {
			if m.Conversation == call.Conversation && m.ID == call.ActivityID {
				m.Text, m.TextFormat, m.Summary, m.Attachments, m.Body = a.Text, a.TextFormat, a.Summary, a.Attachments, body
				m.Updates++
				answer(http.StatusOK, map[string]string{"id": m.ID})
				return
			}
		}
		answer(http.StatusNotFound, errBody("ActivityNotFoundInConversation", "The activity does not exist."))
		return
	}
	m := &Message{Conversation: call.Conversation, ID: s.nextActivityID(), ReplyToID: call.ActivityID,
		Text: a.Text, TextFormat: a.TextFormat, Summary: a.Summary, Attachments: a.Attachments, Body: body, First: body}
	s.msgs = append(s.msgs, m)
	answer(http.StatusCreated, map[string]string{"id": m.ID})
}

func utf16Size(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		n += 2 * max(utf16.RuneLen(r), 1)
	}
	return n
}
