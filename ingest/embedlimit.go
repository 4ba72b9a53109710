package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/ragbot/ragbot/internal/httpretry"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// embedText is EmbedText(c) cut, when it is longer than MaxInputTokens
// allows, to a prefix that fits (retrieval.CutText: at a line break in its
// last quarter, else at a character boundary). cut reports the cut.
func (ix *Indexer) embedText(c retrieval.Chunk) (text string, cut bool) {
	return retrieval.CutText(EmbedText(c), ix.MaxInputTokens)
}

// UnembeddedError is the error of a run that stored every file but these:
// the embedder refused their input, or the store refused their objects.
// The run's SourceState records its commit with this error, so the next
// run is a full one and retries them (their other chunks are kept).
type UnembeddedError struct {
	Files map[string]string // path -> why
}

func (e *UnembeddedError) Error() string {
	paths := slices.Sorted(maps.Keys(e.Files))
	shown := paths[:min(len(paths), 5)]
	parts := make([]string, len(shown))
	for i, p := range shown {
		parts[i] = p + ": " + e.Files[p]
	}
	more := ""
	if len(paths) > len(shown) {
		more = fmt.Sprintf(" | and %d more", len(paths)-len(shown))
	}
	return fmt.Sprintf("%d files not stored, the next run retries them: %s%s", len(paths), strings.Join(parts, " | "), more)
}

// leftOut collects what a run left out: files, path -> why, and semantic
// vectors (see Indexer.embed). It is safe for concurrent use.
type leftOut struct {
	mu      sync.Mutex
	files   map[string]string
	semErr  error // the semantic embedder's first failure, nil while it works
	pending int   // chunks stored without their semantic vector
}

// semanticDown records the semantic embedder's failure, and reports
// whether it was already down.
func (l *leftOut) semanticDown(err error) (was bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	was = l.semErr != nil
	if err != nil && !was {
		l.semErr = err
	}
	return was
}

func (l *leftOut) add(path, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.files == nil {
		l.files = map[string]string{}
	}
	if _, ok := l.files[path]; !ok {
		l.files[path] = why
	}
}

func (l *leftOut) has(path string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.files[path]
	return ok
}

// err is an *UnembeddedError, or nil when no file was left out.
func (l *leftOut) err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.files) == 0 {
		return nil
	}
	return &UnembeddedError{Files: l.files}
}

// inputRefused reports an embedder error about the input itself: a 4xx
// other than 401, 403, 404, 408 and 429 (httpretry.ClientError), such as
// OpenAI's 400 for an input over the model's maximum context length. Only
// such an error is worth retrying file by file.
func inputRefused(err error) bool {
	var se *httpretry.StatusError
	return errors.As(err, &se) && se.Reason == httpretry.ClientError
}

// embedBatch embeds one batch of chunks and stores it. When the embedder
// refuses the batch's input, each file of the batch is embedded alone, so
// that only the files it refuses are left out (in out); an object the store
// refuses leaves out its file the same way. Any other error fails the
// batch. It returns how many chunks it stored.
func (ix *Indexer) embedBatch(ctx context.Context, log *slog.Logger, batch []retrieval.Chunk, out *leftOut) (int, error) {
	texts := make([]string, len(batch))
	for i, c := range batch {
		var cut bool
		if texts[i], cut = ix.embedText(c); cut {
			log.Warn("chunk over the embedder's input limit, its vector is of a prefix", "path", c.Path,
				"symbol", c.Symbol, "bytes", len(EmbedText(c)), "embedded_bytes", len(texts[i]), "max_input_tokens", ix.MaxInputTokens)
		}
	}
	vecs, err := ix.embed(ctx, texts, out)
	if err == nil {
		return ix.upsertOrLeaveOut(ctx, batch, vecs, out)
	}
	if !inputRefused(err) {
		return 0, fmt.Errorf("embed: %w", err)
	}
	stored := 0
	for start := 0; start < len(batch); {
		end := start + 1
		for end < len(batch) && batch[end].Path == batch[start].Path {
			end++
		}
		file := batch[start:end]
		vecs, err := ix.embed(ctx, texts[start:end], out)
		switch {
		case err == nil:
			n, err := ix.upsertOrLeaveOut(ctx, file, vecs, out)
			if err != nil {
				return stored, err
			}
			stored += n
		case inputRefused(err):
			out.add(file[0].Path, "embed: "+err.Error())
		default:
			return stored, fmt.Errorf("embed: %w", err)
		}
		start = end
	}
	return stored, nil
}

// embed is Embedder.Embed, except that when the Embedder is a
// retrieval.Pair whose semantic embedder fails other than on the input
// (down, timed out, refusing the key), the run goes on without it: this
// batch and every later one get lexical vectors alone, which the store
// keeps with their semantic vectors pending (weaviate.Store.Upsert), and
// the next run embeds them (Indexer.write).
func (ix *Indexer) embed(ctx context.Context, texts []string, out *leftOut) ([][]float32, error) {
	p, ok := ix.Embedder.(retrieval.Pair)
	if ok && (ix.DeferSemantic || out.semanticDown(nil)) {
		return p.Lexical.Embed(ctx, texts)
	}
	vecs, err := ix.Embedder.Embed(ctx, texts)
	if !ok || !errors.Is(err, retrieval.ErrSemanticEmbedder) || inputRefused(err) || ctx.Err() != nil {
		return vecs, err
	}
	if !out.semanticDown(err) {
		ix.log().Warn("semantic embedder failed; storing chunks with their lexical vectors, the next run embeds them", "err", err)
	}
	return p.Lexical.Embed(ctx, texts)
}

// upsertOrLeaveOut stores chunks; the files of objects that the store
// refuses (a *weaviate.BatchError) are left out, in out, and the rest
// stored. It returns how many chunks it stored, counted in out.pending too
// when vecs are lexical alone (embed).
func (ix *Indexer) upsertOrLeaveOut(ctx context.Context, chunks []retrieval.Chunk, vecs [][]float32, out *leftOut) (n int, err error) {
	defer func() {
		if len(vecs) > 0 && len(vecs[0]) < ix.Embedder.Dim() {
			out.mu.Lock()
			out.pending += n
			out.mu.Unlock()
		}
	}()
	err = ix.Store.Upsert(ctx, chunks, vecs)
	var be *weaviate.BatchError
	switch {
	case err == nil:
		return len(chunks), nil
	case errors.As(err, &be):
		for _, f := range be.Failed {
			out.add(f.Path, "store: "+f.Message)
		}
		return be.Stored, nil
	}
	return 0, err
}
