package teams

import (
	"sync"
	"time"

	"github.com/ragbot/ragbot/bot"
)

// A convRef is where the replies to one question go: the connector of its
// verified activity and its conversation (with ";messageid=" in channels, so
// replies land in the thread).
type convRef struct {
	serviceURL   string
	conversation string
	users        []string // the asker's ids (from.id, from.aadObjectId), for the thread's turns
	at           time.Time
}

// Reference bounds: an answer is posted within the bot's search timeout
// plus its reply timeout (minutes), and a retried activity brings its
// reference again, so 30 minutes is ample; 10,000 references is a busy
// hour's questions.
const (
	refsTTL = 30 * time.Minute
	refsMax = 10000
)

// refs maps each question's bot.Thread to its convRef, for Reply: bot.Thread
// carries only the access key and the question's id. It is safe for
// concurrent use.
type refs struct {
	now func() time.Time

	mu    sync.Mutex
	by    map[bot.Thread]*convRef
	order []bot.Thread // oldest first
}

func newRefs(now func() time.Time) *refs { return &refs{now: now, by: map[bot.Thread]*convRef{}} }

// put remembers where replies in t go, and who asked.
func (r *refs) put(t bot.Thread, serviceURL, conversation string, users []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if e, ok := r.by[t]; ok {
		e.serviceURL, e.conversation, e.users = serviceURL, conversation, users
		return
	}
	drop := 0
	for drop < len(r.order) && (now.Sub(r.by[r.order[drop]].at) >= refsTTL || len(r.order)-drop >= refsMax) {
		delete(r.by, r.order[drop])
		drop++
	}
	if drop > 0 {
		r.order = append(r.order[:0:0], r.order[drop:]...)
	}
	r.by[t] = &convRef{serviceURL: serviceURL, conversation: conversation, users: users, at: now}
	r.order = append(r.order, t)
}

// get returns where replies in t go.
func (r *refs) get(t bot.Thread) (convRef, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.by[t]
	if !ok || r.now().Sub(e.at) >= refsTTL {
		return convRef{}, false
	}
	return *e, true
}
