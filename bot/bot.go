package bot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
)

// Answerer answers one question with cited snippets. Its error is for
// failures only (index unreachable, timeout), never for "nothing found".
type Answerer interface {
	Ask(ctx context.Context, r retrieval.Request) (retrieval.Answer, error)
}

var _ Answerer = (*retrieval.Asker)(nil)

// FeedbackSink stores votes on answers.
type FeedbackSink interface {
	Put(ctx context.Context, f retrieval.Feedback) error
}

// Config wires a Bot. Answerer and Surface are required.
type Config struct {
	Answerer Answerer
	Surface  Surface
	Access   Access
	// Timeout bounds the search part of one answer (thread read and
	// retrieval); posting the reply gets config.ReplyTimeout on top.
	// [config.DefaultAnswerTimeout, 30s]
	Timeout time.Duration
	Logger  *slog.Logger     // [slog.Default()]
	Now     func() time.Time // [time.Now]
	Hooks   Hooks            // metrics callbacks; nil ones are skipped
	// Claims, when set, dedupes deliveries across replicas (claims.go);
	// nil dedupes in this process only.
	Claims ClaimStore
}

// Hooks are optional callbacks for metrics. They run on the answering
// goroutine and must not block.
type Hooks struct {
	// Replied is called once per answered delivery with the final reply,
	// the time from the start of the answer to the reply, and the error of
	// posting it (nil when posted).
	Replied func(r Reply, elapsed time.Duration, err error)
	// Duplicate is called for each delivery refused as a retry of one being
	// or already answered (Deliveries.Claim), here or, with Config.Claims,
	// on another replica.
	Duplicate func()
}

// Bot answers mentions in the background, once per delivery. It is safe for
// concurrent use; Shutdown stops it.
type Bot struct {
	cfg   Config
	log   *slog.Logger
	seen  *claims
	tasks *tasks
}

// lastReplyTimeout bounds the final reply of an answer cancelled by Shutdown.
const lastReplyTimeout = 5 * time.Second

// Delivery dedupe bounds: Slack retries an unacknowledged event after about
// 0 s, 1 min and 5 min (api.slack.com/apis/events-api#retries), so 15 minutes
// covers every retry; at Slack's limit of 30,000 events per workspace per
// hour that is at most 7,500 ids, under dedupeMax.
const (
	dedupeTTL = 15 * time.Minute
	dedupeMax = 10000
)

// New returns a Bot; it panics when Answerer or Surface is missing, a wiring bug.
func New(cfg Config) *Bot {
	if cfg.Answerer == nil || cfg.Surface == nil {
		panic("bot.New: Answerer and Surface are required")
	}
	cfg.Timeout = cmp.Or(max(cfg.Timeout, 0), config.DefaultAnswerTimeout)
	cfg.Logger = cmp.Or(cfg.Logger, slog.Default())
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	seen := &claims{local: NewDeliveries(dedupeTTL, dedupeMax, cfg.Now), store: cfg.Claims, log: cfg.Logger}
	return &Bot{cfg: cfg, log: cfg.Logger, seen: seen, tasks: newTasks()}
}

// Handle claims the delivery of m and answers it in the background. It
// returns false, doing nothing, when the delivery is a retry of one being or
// already answered by this process, or when the bot is shutting down. It
// does no I/O, so a transport can acknowledge the event right after it; the
// claim shared with other replicas (Config.Claims) is made by the answer.
func (b *Bot) Handle(m Mention) bool {
	replyTS, ok := b.seen.Claim(m.DeliveryID)
	if !ok {
		b.log.Debug("duplicate delivery ignored", "event_id", m.DeliveryID, "channel", m.Thread.Channel)
		if b.cfg.Hooks.Duplicate != nil {
			b.cfg.Hooks.Duplicate()
		}
		return false
	}
	if !b.Go(func(ctx context.Context) { b.answer(ctx, m, replyTS) }) {
		b.seen.Fail(m.DeliveryID)
		return false
	}
	return true
}

// Go runs fn in the background, owned by b: Shutdown waits for it and
// cancels its context when the shutdown deadline passes. It returns false
// without running fn once Shutdown has begun.
func (b *Bot) Go(fn func(ctx context.Context)) bool { return b.tasks.Go(fn) }

// Wait blocks until no background work is running or ctx ends. Work started
// while Wait runs may or may not be waited for; tests call it between steps.
func (b *Bot) Wait(ctx context.Context) error { return b.tasks.wait(ctx) }

// Shutdown stops taking work and waits for running answers. When ctx ends
// first it cancels them, waits for them to return, and returns ctx's error.
func (b *Bot) Shutdown(ctx context.Context) error { return b.tasks.shutdown(ctx) }

// errSearchTimeout is the cause of a search that ran out of Config.Timeout.
var errSearchTimeout = errors.New("answer timeout exceeded")

// answer claims the delivery across replicas (Config.Claims; it stops when
// another replica has it), posts "searching" (unless a failed earlier
// attempt left a reply to reuse, or there is no question), works out the
// reply and replaces the searching one with it.
func (b *Bot) answer(ctx context.Context, m Mention, replyTS string) {
	replyTS, ok := b.seen.shared(ctx, m.DeliveryID, replyTS)
	if !ok {
		b.log.Debug("duplicate delivery ignored: another replica has it", "event_id", m.DeliveryID, "channel", m.Thread.Channel)
		if b.cfg.Hooks.Duplicate != nil {
			b.cfg.Hooks.Duplicate()
		}
		return
	}
	start := b.cfg.Now()
	id := RequestID(m.DeliveryID)
	log := b.log.With("request_id", id, "event_id", m.DeliveryID, "channel", m.Thread.Channel, "thread_ts", m.Thread.TS)
	reply := func(r Reply) error {
		r.RequestID = id
		parent, limit := ctx, config.ReplyTimeout
		if ctx.Err() != nil {
			// Cancelled at the shutdown deadline: still replace "searching"
			// (with "unavailable"), briefly, rather than leave it forever.
			parent, limit = context.WithoutCancel(ctx), lastReplyTimeout
		}
		rctx, cancel := context.WithTimeout(parent, limit)
		defer cancel()
		ts, err := b.cfg.Surface.Reply(rctx, m.Thread, replyTS, r)
		if err == nil && replyTS == "" {
			replyTS = ts
			b.seen.SetReply(m.DeliveryID, ts)
		}
		return err
	}
	if replyTS == "" && m.Text != "" { // an empty mention gets its help at once
		if err := reply(Reply{Kind: Searching, Asked: m.Text}); err != nil {
			log.Error("post searching reply", "err", err)
			b.seen.Fail(m.DeliveryID)
			return
		}
	}
	r := b.respond(ctx, m, log)
	err := reply(r)
	if b.cfg.Hooks.Replied != nil {
		b.cfg.Hooks.Replied(r, b.cfg.Now().Sub(start), err)
	}
	if err != nil {
		log.Error("post answer", "reply_ts", replyTS, "err", err)
		b.seen.Fail(m.DeliveryID)
		return
	}
	b.seen.Done(m.DeliveryID)
	log.Info("answered", "kind", r.Kind.String(), "coverage", r.Answer.Coverage, "snippets", len(r.Answer.Snippets),
		"ms", b.cfg.Now().Sub(start).Milliseconds())
}

// respond works out the reply to m: no sources, help, unavailable or the answer.
func (b *Bot) respond(ctx context.Context, m Mention, log *slog.Logger) Reply {
	sources := b.cfg.Access.Sources(m.Thread.Channel)
	switch {
	case len(sources) == 0:
		log.Warn("channel may see no source; see access in ragbot.yaml")
		return Reply{Kind: NoSources, Asked: m.Text}
	case m.Text == "":
		return Reply{Kind: Help}
	}
	sctx, cancel := context.WithTimeoutCause(ctx, b.cfg.Timeout, fmt.Errorf("%w (%s)", errSearchTimeout, b.cfg.Timeout))
	defer cancel()
	q := m.Text
	var thread []string
	if m.InThread {
		earlier, err := b.cfg.Surface.Earlier(sctx, m.Thread, m.TS)
		if err != nil {
			log.Warn("read thread; answering without its context", "err", err)
		}
		q = FollowUp(q, earlier)
		if len(earlier) > 0 { // for an Answerer's query rewriter (retrieval.Request.Thread)
			thread = append(earlier[:len(earlier):len(earlier)], m.Text)
		}
	}
	groups := b.cfg.Access.GroupsFor(m.Thread.Channel, m.User, m.Private)
	ans, err := b.cfg.Answerer.Ask(sctx, retrieval.Request{Question: q, Sources: sources, Groups: groups, Thread: thread})
	if busy := (*BusyError)(nil); errors.As(err, &busy) { // Admission refused it (admit.go)
		log.Warn("busy: question refused", "reason", busy.Reason, "ahead", busy.Ahead)
		return Reply{Kind: Busy, Asked: m.Text, Ahead: busy.Ahead}
	}
	if err != nil {
		if cause := context.Cause(sctx); cause != nil && !errors.Is(err, cause) {
			err = fmt.Errorf("%w (%v)", err, cause)
		}
		log.Error("search failed; told the user it is unavailable", "err", err)
		return Reply{Kind: Unavailable, Asked: m.Text}
	}
	return Reply{Kind: Answered, Asked: m.Text, Answer: ans}
}
