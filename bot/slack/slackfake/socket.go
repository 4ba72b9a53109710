package slackfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// socketState is the Socket Mode side of the fake: the live connection, how
// many were opened, and the acks received, by envelope id.
type socketState struct {
	mu       sync.Mutex
	conn     *socketConn // the latest connection, nil before the first
	opened   int
	acks     map[string]json.RawMessage
	changed  chan struct{} // closed and replaced on every change
	all      []*socketConn
	upgrader websocket.Upgrader
}

type socketConn struct {
	ws   *websocket.Conn
	wmu  sync.Mutex // gorilla/websocket allows one writer at a time
	done chan struct{}
}

func (s *socketState) init() {
	s.acks = map[string]json.RawMessage{}
	s.changed = make(chan struct{})
	// Clients dial from anywhere with Origin https://api.slack.com (slack-go
	// sets it), not the server's own origin that gorilla checks by default.
	s.upgrader.CheckOrigin = func(r *http.Request) bool { return r.Header.Get("Origin") == "https://api.slack.com" }
}

// notify wakes the waiters; callers hold mu.
func (s *socketState) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (c *socketConn) write(v any) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteJSON(v)
}

// serveSocket upgrades the connection, sends hello like Slack (Slack API docs,
// 'Using Socket Mode'), pings every second, and records the acks it reads.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	ws, err := s.socket.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &socketConn{ws: ws, done: make(chan struct{})}
	st := &s.socket
	st.mu.Lock()
	st.opened++
	n := st.opened
	st.conn = c
	st.all = append(st.all, c)
	st.notify()
	st.mu.Unlock()
	_ = c.write(map[string]any{"type": "hello", "num_connections": 1,
		"debug_info":      map[string]any{"host": "slackfake", "approximate_connection_time": 18060},
		"connection_info": map[string]any{"app_id": AppID}})
	go func() { // exits when the connection closes
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-c.done:
				return
			case <-t.C:
				c.wmu.Lock()
				_ = ws.WriteControl(websocket.PingMessage, []byte(fmt.Sprint(n)), time.Now().Add(time.Second))
				c.wmu.Unlock()
			}
		}
	}()
	defer close(c.done)
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		var ack struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(data, &ack) != nil || ack.EnvelopeID == "" {
			continue
		}
		st.mu.Lock()
		st.acks[ack.EnvelopeID] = data
		st.notify()
		st.mu.Unlock()
	}
}

// WaitConnections waits until n Socket Mode connections were opened.
func (s *Server) WaitConnections(n int, timeout time.Duration) error {
	return s.socket.waitFor(timeout, func() bool { return s.socket.opened >= n },
		fmt.Sprintf("%d socket mode connections", n))
}

// Send writes a frame to the latest Socket Mode connection.
func (s *Server) Send(frame any) error {
	s.socket.mu.Lock()
	c := s.socket.conn
	s.socket.mu.Unlock()
	if c == nil {
		return errors.New("slackfake: no socket mode connection")
	}
	return c.write(frame)
}

// SendEvent sends an events_api envelope carrying the event_callback body
// (see EventCallback); retry is its retry_attempt.
func (s *Server) SendEvent(envelopeID string, body []byte, retry int) error {
	reason := ""
	if retry > 0 {
		reason = "timeout"
	}
	return s.Send(map[string]any{"type": "events_api", "envelope_id": envelopeID, "payload": json.RawMessage(body),
		"accepts_response_payload": false, "retry_attempt": retry, "retry_reason": reason})
}

// Disconnect sends a disconnect envelope, as Slack does before it rotates a
// connection; the client must reconnect with a new apps.connections.open.
func (s *Server) Disconnect(reason string) error {
	return s.Send(map[string]any{"type": "disconnect", "reason": reason,
		"debug_info": map[string]any{"host": "slackfake"}})
}

// WaitAck waits for the ack of envelopeID and returns it as received.
func (s *Server) WaitAck(envelopeID string, timeout time.Duration) (json.RawMessage, error) {
	var ack json.RawMessage
	err := s.socket.waitFor(timeout, func() bool {
		a, ok := s.socket.acks[envelopeID]
		ack = a
		return ok
	}, "ack of envelope "+envelopeID)
	return ack, err
}

// waitFor waits until cond (called with mu held) holds.
func (s *socketState) waitFor(timeout time.Duration, cond func() bool, what string) error {
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		ok, changed := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-deadline:
			return fmt.Errorf("slackfake: no %s after %s", what, timeout)
		}
	}
}

func (s *socketState) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.all {
		_ = c.ws.Close()
	}
}
