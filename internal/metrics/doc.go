// Package metrics holds the Prometheus metrics of `ragbot serve` (GET
// /metrics, docs/deploy.md): one registry per server, fed by callbacks that
// cmd/ragbot wires into the packages doing the work (bot.Hooks,
// ingest.Indexer.OnRun, ingest.SchedulerOptions.OnSkip,
// weaviate.StoreConfig.Observe, bot.AdmissionConfig.OnReject) and by
// decorators around a bot.Answerer and the webhook handler, so that no
// library package imports Prometheus. Every label takes a bounded set of
// values.
package metrics
