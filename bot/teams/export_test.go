package teams

// TokensFetched returns how many access tokens the bot has fetched (for
// tests and benchmarks).
func (b *Bot) TokensFetched() int {
	b.tokens.mu.Lock()
	defer b.tokens.mu.Unlock()
	return b.tokens.fetches
}
