// Package teams is the Microsoft Teams surface of the bot, over the Bot
// Framework (Bot Framework REST API docs, 'Authentication with the Bot
// Connector API' and the Connector API reference). Activities arrive as POSTs on
// MessagesPath; every one must carry a Bot Framework JWT, checked against the
// keys of the OpenID metadata (issuer, audience = the app id, expiry with 5
// minutes of skew, the key's endorsements naming the activity's channel, the
// serviceurl claim equal to the activity's serviceUrl) before anything is
// done. A message is acknowledged at once and answered by the shared bot flow
// in the background: a "Searching…" reply threaded under the question, then
// replaced by the answer as an Adaptive Card. Replies go through the
// Connector at the activity's serviceUrl with a client-credentials token that
// is cached until shortly before it expires. Votes (Action.Submit) come back
// as message activities and are stored like Slack's. A reply in a channel
// thread is a follow-up, widened with the questions answered earlier in the
// thread (Config.Turns), since the connector cannot read the thread. The
// "where is" message extension (a composeExtension/query invoke) is
// answered in the HTTP response with one result card per snippet.
package teams
