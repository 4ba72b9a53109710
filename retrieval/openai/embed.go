package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ragbot/ragbot/internal/httpretry"
	"github.com/ragbot/ragbot/retrieval"
)

// OpenAI client defaults.
const (
	// DefaultBatch is how many texts go in one request. OpenAI accepts
	// up to 2048 inputs per request (API reference, "Create embeddings"), but
	// Hugging Face TEI refuses more than its --max-client-batch-size, 32 by
	// default (TEI router CLI), so 32 works against every server we target.
	DefaultBatch = 32
	// DefaultTimeout bounds one HTTP request, retries excluded.
	DefaultTimeout = 60 * time.Second
	// DefaultRetries is how many times a request is retried after a
	// 429, a 5xx or a network error before Embed gives up.
	DefaultRetries = 5
)

// EmbedderConfig configures an OpenAI-compatible embeddings endpoint:
// OpenAI, Ollama (/v1), vLLM and Hugging Face TEI all serve
// POST {BaseURL}/embeddings with this wire format.
type EmbedderConfig struct {
	// BaseURL is the API root, e.g. "https://api.openai.com/v1",
	// "http://localhost:11434/v1" (Ollama) or "http://tei:8080/v1".
	BaseURL string
	// Model is the model name sent with each request ("text-embedding-3-small").
	Model string
	// APIKey is sent as a bearer token; "" sends no Authorization header
	// (local Ollama, TEI). It never appears in errors.
	APIKey string
	// Dimensions, when > 0, is sent as "dimensions" (OpenAI text-embedding-3
	// models shorten their vectors to it) and must be the length returned.
	// 0 sends nothing and learns the length from a first request.
	Dimensions int
	// KnownDim, when > 0 and Dimensions is 0, is the vector length already
	// known (a collection records it in its embedder's Name): NewEmbedder
	// then makes no request, so it works while the endpoint is down. It is
	// not sent; a vector of another length is an error.
	KnownDim int
	// BatchSize is how many texts go in one request [DefaultBatch].
	BatchSize int
	// Timeout bounds one request [DefaultTimeout].
	Timeout time.Duration
	// MaxRetries bounds the retries of one request [DefaultRetries];
	// negative means none.
	MaxRetries int
	// Client is the HTTP client [a new one with Timeout].
	Client *http.Client
}

// Embedder is a retrieval.Embedder that calls an OpenAI-compatible /embeddings
// endpoint. It splits a call into requests of BatchSize texts, retries 429s,
// 5xx answers and network errors with exponential backoff (honouring
// Retry-After), and checks every vector's length. It is safe for concurrent
// use and holds no resources to close.
type Embedder struct {
	cfg EmbedderConfig
	api *apiClient
	dim int
}

var _ retrieval.Embedder = (*Embedder)(nil)

// NewEmbedder checks cfg and returns the client. Unless cfg.Dimensions is set
// it embeds one short text to learn the vector length, so it fails early
// when the endpoint, model or key is wrong. Errors name the endpoint and the
// model, never the key.
func NewEmbedder(ctx context.Context, cfg EmbedderConfig) (*Embedder, error) {
	if err := checkBaseURL("openai embedder", cfg.BaseURL); err != nil {
		return nil, err
	}
	if cfg.Model == "" {
		return nil, errors.New("openai embedder: model must be set")
	}
	cfg.BatchSize = cmp.Or(max(cfg.BatchSize, 0), DefaultBatch)
	cfg.Timeout = cmp.Or(max(cfg.Timeout, 0), DefaultTimeout)
	cfg.MaxRetries = cmp.Or(cfg.MaxRetries, DefaultRetries)
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: cfg.Timeout}
	}
	e := &Embedder{cfg: cfg, dim: cmp.Or(cfg.Dimensions, cfg.KnownDim), api: &apiClient{
		what: "openai embedder " + cfg.Model, baseURL: cfg.BaseURL, apiKey: cfg.APIKey,
		client: cfg.Client, maxRetries: cfg.MaxRetries, sleep: httpretry.Sleep,
	}}
	if e.dim == 0 {
		vs, err := e.request(ctx, []string{"dimension probe"})
		if err != nil {
			return nil, err
		}
		e.dim = len(vs[0])
	}
	return e, nil
}

// Name is "openai:<model>:<dimensions>", e.g.
// "openai:text-embedding-3-small:1536": another model or length makes other
// vectors, so the collection check refuses the mix.
func (e *Embedder) Name() string { return fmt.Sprintf("openai:%s:%d", e.cfg.Model, e.dim) }

// Dim is the vector length, in float32 elements.
func (e *Embedder) Dim() int { return e.dim }

// Embed returns one vector per text, in order, in requests of BatchSize texts.
// Errors: the endpoint failing after the retries (naming the status and the
// server's message), a vector of the wrong length or a missing index, and ctx
// being done (wrapping ctx.Err()). No partial result is returned with an error.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.cfg.BatchSize {
		batch := texts[start:min(start+e.cfg.BatchSize, len(texts))]
		vs, err := e.request(ctx, batch)
		if err != nil {
			return nil, err
		}
		for i, v := range vs {
			if len(v) != e.dim {
				return nil, fmt.Errorf("%s: text %d: got %d dimensions, want %d", e.api.what, start+i, len(v), e.dim)
			}
		}
		out = append(out, vs...)
	}
	return out, nil
}

// embeddingsRequest and embeddingsResponse are the wire format of
// POST /v1/embeddings (OpenAI API reference, "Embeddings").
type embeddingsRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type embeddingsResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// request embeds one batch.
func (e *Embedder) request(ctx context.Context, texts []string) ([][]float32, error) {
	var r embeddingsResponse
	if err := e.api.postJSON(ctx, "/embeddings", embeddingsRequest{Model: e.cfg.Model, Input: texts, Dimensions: e.cfg.Dimensions}, &r); err != nil {
		return nil, err
	}
	if len(r.Data) != len(texts) {
		return nil, fmt.Errorf("%s: got %d embeddings for %d texts", e.api.what, len(r.Data), len(texts))
	}
	vs := make([][]float32, len(texts))
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= len(texts) || vs[d.Index] != nil {
			return nil, fmt.Errorf("%s: bad or repeated embedding index %d", e.api.what, d.Index)
		}
		vs[d.Index] = d.Embedding
	}
	return vs, nil
}
