package slackfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// serveAPI answers one Web API method, checking the token first.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	method := r.PathValue("method")
	form, token, err := readRequest(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	call := Call{Method: method, At: time.Now(), Status: http.StatusOK, Form: form}
	defer func() { s.calls = append(s.calls, call) }()
	if d := s.limits[method]; len(d) > 0 {
		s.limits[method] = d[1:]
		call.Status = http.StatusTooManyRequests
		w.Header().Set("Retry-After", strconv.Itoa(d[0]))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"ok":false,"error":"ratelimited"}`))
		return
	}
	reply := func(v map[string]any) {
		if e, ok := v["error"].(string); ok {
			call.Error = e
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	fail := func(code string) { reply(map[string]any{"ok": false, "error": code}) }
	want := BotToken
	if method == "apps.connections.open" {
		want = AppToken
	}
	if token != want {
		fail("invalid_auth")
		return
	}
	if f := s.fails[method]; len(f) > 0 {
		s.fails[method] = f[1:]
		fail(f[0])
		return
	}
	switch method {
	case "auth.test":
		reply(map[string]any{"ok": true, "url": "https://fake.slack.com/", "team": "Fake", "user": "ragbot",
			"team_id": TeamID, "user_id": BotUserID, "bot_id": BotID})
	case "chat.postMessage":
		s.postMessage(form, reply, fail)
	case "chat.update":
		s.update(form, reply, fail)
	case "conversations.replies":
		s.replies(form, reply, fail)
	case "apps.connections.open":
		reply(map[string]any{"ok": true, "url": "ws" + strings.TrimPrefix(s.URL, "http") + "/socket"})
	default:
		fail("unknown_method")
	}
}

// readRequest returns the form of a form-encoded or JSON request and the
// token it carries (form field "token" or Authorization: Bearer).
func readRequest(r *http.Request) (url.Values, string, error) {
	form := url.Values{}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil && err.Error() != "EOF" {
			return nil, "", fmt.Errorf("invalid_json: %v", err)
		}
		for k, v := range m {
			if str, ok := v.(string); ok {
				form.Set(k, str)
			} else {
				b, _ := json.Marshal(v)
				form.Set(k, string(b))
			}
		}
	} else {
		if err := r.ParseForm(); err != nil {
			return nil, "", err
		}
		form = r.PostForm
	}
	token := form.Get("token")
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		token = bearer
	}
	return form, token, nil
}

func (s *Server) postMessage(form url.Values, reply func(map[string]any), fail func(string)) {
	m := &Message{Channel: form.Get("channel"), ThreadTS: form.Get("thread_ts"), Text: form.Get("text"), User: BotUserID, BotID: BotID}
	if m.Channel == "" {
		fail("channel_not_found")
		return
	}
	if code := s.setContent(m, form); code != "" {
		fail(code)
		return
	}
	m.TS = s.nextTS()
	s.msgs = append(s.msgs, m)
	reply(map[string]any{"ok": true, "channel": m.Channel, "ts": m.TS, "message": messageJSON(m)})
}

func (s *Server) update(form url.Values, reply func(map[string]any), fail func(string)) {
	var m *Message
	for _, x := range s.msgs {
		if x.Channel == form.Get("channel") && x.TS == form.Get("ts") {
			m = x
		}
	}
	if m == nil {
		fail("message_not_found")
		return
	}
	if m.BotID != BotID {
		fail("cant_update_message")
		return
	}
	next := *m
	if code := s.setContent(&next, form); code != "" {
		fail(code)
		return
	}
	next.Updates++
	*m = next
	reply(map[string]any{"ok": true, "channel": m.Channel, "ts": m.TS, "text": m.Text})
}

// setContent takes text and blocks from the form, returning the error Slack
// would give for content it refuses.
func (s *Server) setContent(m *Message, form url.Values) string {
	m.Text = form.Get("text")
	m.Blocks = nil
	if b := form.Get("blocks"); b != "" {
		if err := CheckBlocks(json.RawMessage(b)); err != nil {
			return "invalid_blocks"
		}
		m.Blocks = json.RawMessage(b)
	}
	if m.Text == "" && m.Blocks == nil {
		return "no_text"
	}
	if utf16Len(m.Text) > MaxText {
		return "msg_too_long"
	}
	return ""
}

func (s *Server) replies(form url.Values, reply func(map[string]any), fail func(string)) {
	channel, root := form.Get("channel"), form.Get("ts")
	latest, inclusive := form.Get("latest"), form.Get("inclusive") == "1"
	limit, _ := strconv.Atoi(form.Get("limit"))
	if limit <= 0 {
		limit = 1000
	}
	var thread []*Message
	for _, m := range s.msgs {
		if m.Channel != channel || (m.TS != root && m.ThreadTS != root) {
			continue
		}
		if latest != "" && (tsAfter(m.TS, latest) || (!inclusive && m.TS == latest)) {
			continue
		}
		thread = append(thread, m)
	}
	if len(thread) == 0 {
		fail("thread_not_found")
		return
	}
	slices.SortStableFunc(thread, func(a, b *Message) int { return compareTS(a.TS, b.TS) })
	if len(thread) > limit {
		thread = thread[:limit]
	}
	out := make([]any, len(thread))
	for i, m := range thread {
		out[i] = messageJSON(m)
	}
	reply(map[string]any{"ok": true, "messages": out, "has_more": false})
}

func messageJSON(m *Message) map[string]any {
	v := map[string]any{"type": "message", "ts": m.TS, "text": m.Text}
	if m.User != "" {
		v["user"] = m.User
	}
	if m.BotID != "" {
		v["bot_id"] = m.BotID
	}
	if m.ThreadTS != "" {
		v["thread_ts"] = m.ThreadTS
	}
	if m.Blocks != nil {
		v["blocks"] = m.Blocks
	}
	return v
}

// compareTS orders Slack ts strings by their seconds, then microseconds.
func compareTS(a, b string) int {
	pa, pb := splitTS(a), splitTS(b)
	if pa[0] != pb[0] {
		return cmpInt(pa[0], pb[0])
	}
	return cmpInt(pa[1], pb[1])
}

func tsAfter(a, b string) bool { return compareTS(a, b) > 0 }

func splitTS(ts string) [2]int64 {
	sec, micro, _ := strings.Cut(ts, ".")
	s, _ := strconv.ParseInt(sec, 10, 64)
	m, _ := strconv.ParseInt(micro, 10, 64)
	return [2]int64{s, m}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
