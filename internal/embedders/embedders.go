package embedders

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/models"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/embed/codesearch"
	"github.com/ragbot/ragbot/retrieval/embed/transformer"
	"github.com/ragbot/ragbot/retrieval/openai"
)

// maker makes the embedder of settings e; resolve makes a relative path
// absolute (config.Config.Resolve).
type maker func(ctx context.Context, e config.Embedder, resolve func(path string) string) (retrieval.Embedder, error)

// kinds makes the embedder of each embedder kind from its settings e
// (embedder, or embedder.semantic): adding a kind is one entry here (init
// adds its name to config.EmbedderKinds, so the config accepts it).
var kinds = map[string]maker{
	"offline": func(context.Context, config.Embedder, func(string) string) (retrieval.Embedder, error) {
		return embed.NewOffline(), nil
	},
	"codesearch": newCodeSearch,
	"openai":     newOpenAI,
	"onnx":       newONNX,
}

func init() {
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		if !slices.Contains(config.EmbedderKinds, k) {
			config.EmbedderKinds = append(config.EmbedderKinds, k)
		}
	}
}

// New returns the embedder of e, the config's embedder section: the
// embedder of e.Kind, or, with e.Semantic set, a retrieval.Pair of it
// (Lexical) and the semantic one. resolve makes a relative embedder.model
// path absolute (config.Config.Resolve); nil leaves it as it is.
//
// Kind openai makes one request to learn the vector length unless
// dimensions is set, so a wrong URL, model or key fails here. Errors name
// the field: an unknown kind "embedder.kind" or "embedder.semantic.kind", a
// model file that does not load "embedder.model" (for either embedder),
// and so does a model of kind onnx that is unknown or not installed (a
// *transformer.NotInstalledError, naming scripts/install-model.sh).
func New(ctx context.Context, e config.Embedder, resolve func(path string) string) (retrieval.Embedder, error) {
	if resolve == nil {
		resolve = func(p string) string { return p }
	}
	lex, err := of(ctx, e, "embedder", resolve)
	if err != nil {
		return nil, err
	}
	s := e.Semantic
	if s == nil {
		return lex, nil
	}
	sem, err := of(ctx, *s, "embedder.semantic", resolve)
	if err != nil {
		return nil, err
	}
	cut := s.MaxInputTokens
	if s.Kind == "onnx" { // counted by the model's own tokenizer (newONNX)
		cut = 0
	}
	return retrieval.Pair{Lexical: lex, Semantic: sem, SemanticMaxInputTokens: cut}, nil
}

// of makes the embedder of settings e, found at path p in the config.
func of(ctx context.Context, e config.Embedder, p string, resolve func(string) string) (retrieval.Embedder, error) {
	mk, ok := kinds[e.Kind]
	if !ok {
		return nil, fmt.Errorf("%s.kind: unknown embedder kind %q", p, e.Kind)
	}
	emb, err := mk(ctx, e, resolve)
	if err != nil && e.Kind == "onnx" {
		return nil, fmt.Errorf("%s.model: %w", p, err)
	}
	return emb, err
}

// newCodeSearch loads the codesearch model of e.Model, or the one built
// into the binary (models.CodeSearchV1) when it is empty.
func newCodeSearch(_ context.Context, e config.Embedder, resolve func(string) string) (retrieval.Embedder, error) {
	if e.Model == "" {
		m, hash, err := codesearch.Load(models.CodeSearchV1)
		if err != nil {
			return nil, fmt.Errorf("built-in codesearch model: %w", err)
		}
		return embed.NewCodeSearch(m, hash), nil
	}
	m, hash, err := codesearch.LoadFile(resolve(e.Model))
	if err != nil {
		return nil, fmt.Errorf("embedder.model: %w", err)
	}
	return embed.NewCodeSearch(m, hash), nil
}

// newONNX loads the pretrained transformer of e.Model (transformer.Specs;
// "" means transformer.DefaultModel) from the folder that
// scripts/install-model.sh fills ($RAGBOT_MODEL_DIR, else the user's cache
// folder), with e.MaxInputTokens as its input length in the model's tokens
// (0: the model card's). A missing or altered model or runtime is a
// *transformer.NotInstalledError naming the install command.
func newONNX(_ context.Context, e config.Embedder, _ func(string) string) (retrieval.Embedder, error) {
	name := cmp.Or(e.Model, transformer.DefaultModel)
	if _, ok := transformer.Lookup(name); !ok {
		return nil, fmt.Errorf("%q is not a known model of kind onnx, want one of %s", name, strings.Join(transformer.Names(), ", "))
	}
	return transformer.New(name, transformer.Options{MaxTokens: e.MaxInputTokens})
}

// newOpenAI returns the OpenAI-compatible embedder of kind openai, its API
// key read from the variable e.APIKeyEnv names (none when it is empty).
func newOpenAI(ctx context.Context, e config.Embedder, _ func(string) string) (retrieval.Embedder, error) {
	return openai.NewEmbedder(ctx, openai.EmbedderConfig{
		BaseURL: e.BaseURL, Model: e.Model, APIKey: os.Getenv(e.APIKeyEnv),
		Dimensions: e.Dimensions, BatchSize: e.BatchSize, Timeout: e.Timeout,
	})
}

// Lexical is the embedder of emb's lexical vectors: a Pair's Lexical, or
// emb itself.
func Lexical(emb retrieval.Embedder) retrieval.Embedder {
	if p, ok := emb.(retrieval.Pair); ok {
		return p.Lexical
	}
	return emb
}

// SemanticStartError is NewForQuestions' note that the semantic embedder
// of kind openai could not be made: its endpoint did not answer the
// request that learns the vector length.
type SemanticStartError struct{ Err error }

func (e *SemanticStartError) Error() string {
	return "semantic embedder unavailable at start: " + e.Err.Error()
}
func (e *SemanticStartError) Unwrap() error { return e.Err }

// NewForQuestions is New for a command that answers questions (ask,
// serve): with embedder.semantic of kind openai, its request that learns
// the vector length (none when dimensions is set) gets budget instead of
// the client's retries (about 15 s against a 503), and when it fails the
// lexical embedder is returned alone, with down the *SemanticStartError,
// so that the command answers from keywords instead of failing.
func NewForQuestions(ctx context.Context, e config.Embedder, resolve func(path string) string, budget time.Duration) (emb retrieval.Embedder, down error, err error) {
	s := e.Semantic
	if s == nil || s.Kind != "openai" {
		emb, err = New(ctx, e, resolve)
		return emb, nil, err
	}
	if resolve == nil {
		resolve = func(p string) string { return p }
	}
	lex, err := of(ctx, e, "embedder", resolve)
	if err != nil {
		return nil, nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	sem, err := of(pctx, *s, "embedder.semantic", resolve)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, err
		}
		return lex, &SemanticStartError{Err: err}, nil
	}
	return retrieval.Pair{Lexical: lex, Semantic: sem, SemanticMaxInputTokens: s.MaxInputTokens}, nil, nil
}

// SemanticKnown makes the openai semantic embedder of s with its vector
// length known (recorded by the collection, RecordedDim), making no
// request, so that it can be made while its endpoint is down.
func SemanticKnown(ctx context.Context, s config.Embedder, dim int) (retrieval.Embedder, error) {
	return openai.NewEmbedder(ctx, openai.EmbedderConfig{
		BaseURL: s.BaseURL, Model: s.Model, APIKey: os.Getenv(s.APIKeyEnv),
		Dimensions: s.Dimensions, KnownDim: dim, BatchSize: s.BatchSize, Timeout: s.Timeout,
	})
}

// RecordedDim is the vector length in a recorded embedder name
// "openai:<model>:<dim>" when its model is model, else 0.
func RecordedDim(recorded, model string) int {
	rest, ok := strings.CutPrefix(recorded, "openai:"+model+":")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// CheckInstalled reports, without loading anything, whether the models of
// kind onnx that e names (embedder or embedder.semantic) and ONNX Runtime
// are installed (transformer.Installed): nil when they are or when e has
// none; else an error naming the field, the missing file and the command
// that installs it (ragbot validate, doctor).
func CheckInstalled(e config.Embedder) error {
	check := func(p string, e config.Embedder) error {
		if e.Kind != "onnx" {
			return nil
		}
		if err := transformer.Installed(cmp.Or(e.Model, transformer.DefaultModel), ""); err != nil {
			return fmt.Errorf("%s.model: %w", p, err)
		}
		return nil
	}
	if err := check("embedder", e); err != nil {
		return err
	}
	if e.Semantic != nil {
		return check("embedder.semantic", *e.Semantic)
	}
	return nil
}
