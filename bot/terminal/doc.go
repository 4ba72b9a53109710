// Package terminal renders a retrieval.Answer for a terminal, as `ragbot
// ask` prints it: a header line per snippet (location, symbol, commit,
// author, when it was indexed) with the snippet indented under it, the
// "not sure" list and the hints of a refusal, from the same Answer that
// bot/slack and bot/teams render for chat; and, for `ask --explain`, why
// an answer was given or refused and the queries the LLM rewrite searched.
package terminal
