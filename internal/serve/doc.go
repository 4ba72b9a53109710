// Package serve runs `ragbot serve`: the chat surfaces (Slack over Socket
// Mode or the Events API, Microsoft Teams) answering with one answer
// pipeline under one admission pool, the push webhooks and polls that keep
// the git sources indexed, the Confluence re-syncs and the vote retention
// on one scheduler, the claims and index leases shared with other replicas
// (the Delivery collection), and one HTTP server for all of them with
// /healthz, /readyz and /metrics. New builds and checks it all (tokens
// with Slack and the Bot Framework, the listener); Run serves until the
// context ends and shuts down in order. cmd/ragbot loads the config, opens
// the store, builds the pipeline and the metrics, and hands them over as
// Parts.
package serve
