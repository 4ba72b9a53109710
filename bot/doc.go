// Package bot holds what every chat surface shares: a question addressed to
// the bot (Mention) is claimed once per delivery (Deliveries, and a
// ClaimStore shared by serve replicas, so platform retries never answer
// twice), acknowledged with a "searching" reply, scoped
// to the sources its channel may see (Access), widened with its thread's
// terms when it is a short follow-up (FollowUp), answered by an Answerer
// (*retrieval.Asker) and replied in its thread through a Surface, which
// renders the surface-neutral Reply for its platform (bot/slack renders Block
// Kit). Background work is owned by the Bot and drained by Shutdown.
package bot
