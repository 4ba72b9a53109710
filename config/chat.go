package config

import "time"

// Time limits of the chat surfaces, shared by bot, bot/slack and bot/teams
// so that each is written once.
const (
	// DefaultAnswerTimeout bounds the search part of one answer (thread
	// read and retrieval): the default of slack.answer_timeout and
	// teams.answer_timeout, and what bot, bot/slack and bot/teams use when
	// their Config leaves it zero. Posting the reply has ReplyTimeout.
	DefaultAnswerTimeout = 30 * time.Second
	// MaxRetryWait is the longest wait a chat surface takes before retrying
	// a throttled or failed call (Slack's Retry-After, the Teams
	// connector's Retry-After or backoff). A longer one means the method's
	// budget is spent for now, and an error in the log serves the user
	// better than an answer minutes late.
	MaxRetryWait = 30 * time.Second
	// ReplyTimeout bounds posting one reply, including up to three waits of
	// MaxRetryWait for rate limits.
	ReplyTimeout = 3 * MaxRetryWait
)
