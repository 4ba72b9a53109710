package weaviate

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/auth"
)

// OpenStoreReembed is OpenStore for an index run that may re-embed: when
// the chunk collection holds vectors of another embedder (a retrained or
// refined static model, whose vectors are cheap to remake), it drops the
// chunk and state collections and creates them empty for embedder instead
// of failing, and returns the name of the embedder whose vectors it
// dropped ("" when nothing was dropped). The caller must then index every
// source anew. Its other errors are OpenStore's.
func OpenStoreReembed(ctx context.Context, cfg StoreConfig, embedder string) (*Store, string, error) {
	s, err := OpenStore(ctx, cfg, embedder)
	if !errors.Is(err, ErrEmbedderMismatch) {
		return s, "", err
	}
	prev, err := collectionEmbedder(ctx, cfg)
	if err != nil {
		return nil, "", err
	}
	s, err = OpenStore(ctx, cfg, prev)
	if err != nil {
		return nil, "", err
	}
	s.emb = embedder
	if err := s.Recreate(ctx); err != nil {
		return nil, prev, err
	}
	return s, prev, nil
}

// collectionEmbedder reads the embedder name recorded in the description
// of cfg's chunk collection.
func collectionEmbedder(ctx context.Context, cfg StoreConfig) (string, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("weaviate url %q: want scheme://host:port", cfg.URL)
	}
	wc := weaviate.Config{Host: u.Host, Scheme: u.Scheme, Timeout: cfg.Timeout}
	if cfg.APIKey != "" {
		wc.AuthConfig = auth.ApiKey{Value: cfg.APIKey}
	}
	client, err := weaviate.NewClient(wc)
	if err != nil {
		return "", fmt.Errorf("weaviate %s: %w", u.Host, err)
	}
	class := cfg.ChunkClass
	if class == "" {
		class = "Chunk"
	}
	got, err := client.Schema().ClassGetter().WithClassName(class).Do(ctx)
	if err != nil {
		return "", fmt.Errorf("weaviate: read collection %s: %w", class, describe(err))
	}
	return strings.TrimPrefix(got.Description, embedderTag), nil
}
