// Package slack is ragbot's Slack surface. Events reach it over Socket Mode
// (RunSocketMode, an outbound WebSocket) or the HTTP Events API (Routes,
// every request verified against the signing secret over its raw bytes
// before it is parsed, and acknowledged before any work starts). Mentions and
// direct messages go to bot.Bot, which claims each event_id once and calls
// back Reply and Earlier here: a "Searching…" reply in the thread, replaced
// (chat.update) by the answer rendered as Block Kit. /where-is answers
// through its response_url as a list, definitions first. Buttons under an
// answer store votes (FeedbackSink) or share a /where-is list in the
// channel. Web API calls that get HTTP 429 wait Retry-After and try again.
package slack
