package confluence_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/ragbot/ragbot/confluence"
	"github.com/ragbot/ragbot/confluence/confluencetest"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// BenchmarkSync300 syncs a 300-page space served locally into a real
// Weaviate with the default client settings (v2 lists 250 pages a request,
// v1 100; bodies are fetched 50 pages a request): "first" from an empty
// collection, "resync" with nothing changed. It reports the HTTP requests
// per sync; each page has 4 sections, so a first sync embeds 1,200 chunks.
//
//	go test ./confluence/ -run '^$' -bench Sync300 -benchtime 3x
func BenchmarkSync300(b *testing.B) {
	for _, flavour := range []string{confluence.Cloud, confluence.DataCenter} {
		for _, mode := range []string{"first", "resync"} {
			b.Run(flavour+"/"+mode, func(b *testing.B) {
				srv := confluencetest.New(b, flavour, ops)
				srv.Put(confluencetest.Filler("OPS", 100001, 300)...)
				client, err := confluence.NewClient(confluence.Options{BaseURL: srv.BaseURL(), Flavour: flavour,
					Email: confluencetest.Email, Token: confluencetest.Token, Log: slog.New(slog.DiscardHandler)})
				if err != nil {
					b.Fatal(err)
				}
				emb := embed.NewOffline()
				store := weaviatetest.NewStore(b, emb.Name())
				ix := &ingest.Indexer{Store: store, Embedder: emb, Log: slog.New(slog.DiscardHandler)}
				set := ingest.PageSet{ID: "confluence:bench", Pages: confluence.NewSource(client, confluence.Scope{Spaces: []string{"OPS"}}),
					Settings: confluence.Settings(client)}
				ctx := context.Background()
				if mode == "resync" {
					if _, err := ix.IndexPages(ctx, set, false); err != nil {
						b.Fatal(err)
					}
				}
				requests := 0
				var st ingest.PageStats
				b.ResetTimer()
				for range b.N {
					if mode == "first" {
						b.StopTimer()
						if err := store.Recreate(ctx); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					srv.Reset()
					st, err = ix.IndexPages(ctx, set, false)
					if err != nil {
						b.Fatal(err)
					}
					n, _, _ := srv.Counts()
					requests += n
				}
				b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
				b.ReportMetric(float64(st.Fetched), "pages-fetched/op")
				b.ReportMetric(float64(st.Embedded), "embedded/op")
			})
		}
	}
}
