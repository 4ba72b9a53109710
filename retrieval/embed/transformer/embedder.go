package transformer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed/wordpiece"
)

// Options tune New. The zero value is the default for every field.
type Options struct {
	// ModelDir holds the models and the runtime library, as
	// scripts/install-model.sh lays them out; "" means DefaultModelDir().
	ModelDir string
	// RuntimeLib is the ONNX Runtime shared library to load; "" means the
	// one under ModelDir (onnxruntime-1.22.1/libonnxruntime.so.1.22.1).
	// One process loads one library: the first New decides.
	RuntimeLib string
	// MaxTokens is the input length, in tokens with [CLS] and [SEP]; 0
	// means the Spec's (256 for all-MiniLM-L6-v2, 512 for the others). The
	// models have 512 positions, so at most 512.
	MaxTokens int
	// Threads is how many CPU threads the model runs on in all; 0 means
	// runtime.NumCPU().
	Threads int
	// Sessions is how many ONNX Runtime sessions share Threads, each with
	// Threads/Sessions intra-op threads and each running one batch at a
	// time; 0 means one per thread. On 2 cores two sessions of one thread
	// took 36 ms of CPU per 256-token chunk, one session of two threads 67
	// (BenchmarkSessions); a question's latency was the same.
	Sessions int
	// BatchSize is how many token rows one model run takes, padded to the
	// longest; 0 means 1 for Int8 models, so that a text's vector does not
	// depend on its neighbours (Spec.Int8), and 16 for the others. Batches
	// of 16 gave the int8 models no speed: they took 10 to 20% more CPU per
	// chunk (BenchmarkEmbed).
	BatchSize int
}

// An Embedder embeds texts with one model of Specs. It implements
// retrieval.QueryEmbedder: Embed for passages, with the model's passage
// prefix, and EmbedQueries for questions, with its query prefix. Vectors
// are Dim() float32s of unit length. It is safe for concurrent use. Close
// frees its sessions; one used until the process exits need not be closed.
type Embedder struct {
	spec      Spec
	name      string
	maxTokens int
	batchSize int
	tok       *wordpiece.Tokenizer

	// sessions holds the idle sessions; a batch takes one and puts it back.
	// Close takes all of them and closes the channel.
	sessions  chan *ort.DynamicAdvancedSession
	nSessions int
	closeOnce sync.Once
}

var _ retrieval.QueryEmbedder = (*Embedder)(nil)

// New loads model name (one of Specs) from opts.ModelDir and the ONNX
// Runtime library. When a file is missing or differs from its pin it returns
// a *NotInstalledError (errors.Is(err, ErrNotInstalled)) naming
// InstallCommand(name); it also fails on an unknown name or a bad option,
// naming the allowed values, and when ONNX Runtime cannot load the model.
// New hashes the model file (about 0.1 s for the -q models). Each session
// holds its own copy of the model: with the default two sessions on 2
// cores, a test process that embedded 64 chunks was 150 MB resident with
// all-minilm-l6-v2-q, 260 MB with bge-small-en-v1.5-q and 680 MB with the
// fp32 all-minilm-l6-v2.
func New(name string, opts Options) (*Embedder, error) {
	spec, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("transformer: model %q is unknown, want one of %s", name, strings.Join(Names(), ", "))
	}
	e := &Embedder{spec: spec, maxTokens: opts.MaxTokens, batchSize: opts.BatchSize}
	if err := e.setOptions(); err != nil {
		return nil, err
	}
	dir := opts.ModelDir
	if dir == "" {
		d, err := DefaultModelDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	onnxPath := filepath.Join(dir, spec.Name, spec.ONNXFile())
	tokPath := filepath.Join(dir, spec.Name, spec.TokenizerFile())
	if err := checkFile(name, onnxPath, spec.ONNXSHA256); err != nil {
		return nil, err
	}
	if err := checkFile(name, tokPath, spec.TokenizerSHA256); err != nil {
		return nil, err
	}
	lib := opts.RuntimeLib
	if lib == "" {
		lib = filepath.Join(dir, runtimeFile)
	}
	if _, err := os.Stat(lib); err != nil {
		return nil, &NotInstalledError{Model: name, Path: lib, Err: errors.Unwrap(err)}
	}
	if err := loadRuntime(lib); err != nil {
		return nil, err
	}
	tok, err := wordpiece.Load(tokPath)
	if err != nil {
		return nil, fmt.Errorf("transformer: model %s: %w", name, err)
	}
	e.tok = tok
	threads := opts.Threads
	if threads <= 0 {
		threads = goruntime.NumCPU()
	}
	n := opts.Sessions
	if n <= 0 {
		n = threads
	}
	if err := e.openSessions(onnxPath, n, max(1, threads/n)); err != nil {
		return nil, fmt.Errorf("transformer: model %s: %s: %w", name, onnxPath, err)
	}
	return e, nil
}

// setOptions checks e's MaxTokens and BatchSize, as New copied them
// from Options, applies their defaults, and sets the name.
func (e *Embedder) setOptions() error {
	const maxPositions = 512 // max_position_embeddings of all three models' config.json
	switch {
	case e.maxTokens == 0:
		e.maxTokens = e.spec.MaxTokens
	case e.maxTokens < 16 || e.maxTokens > maxPositions:
		return fmt.Errorf("transformer: MaxTokens %d is out of range, want 16 to %d tokens (0: %d)", e.maxTokens, maxPositions, e.spec.MaxTokens)
	}
	if e.batchSize < 0 {
		return fmt.Errorf("transformer: BatchSize %d is negative, want 0 (default) or more rows", e.batchSize)
	}
	if e.batchSize == 0 {
		e.batchSize = 16
		if e.spec.Int8 {
			e.batchSize = 1
		}
	}
	e.name = fmt.Sprintf("onnx-%s-%d", e.spec.Name, e.spec.Dim)
	if e.maxTokens != e.spec.MaxTokens {
		e.name += fmt.Sprintf("-t%d", e.maxTokens)
	}
	return nil
}

// openSessions creates n sessions of the model at path, each with intra
// intra-op threads.
func (e *Embedder) openSessions(path string, n, intra int) error {
	so, err := ort.NewSessionOptions()
	if err != nil {
		return err
	}
	defer so.Destroy()
	if err := so.SetIntraOpNumThreads(intra); err != nil {
		return err
	}
	if err := so.SetInterOpNumThreads(1); err != nil {
		return err
	}
	e.sessions = make(chan *ort.DynamicAdvancedSession, n)
	for range n {
		s, err := ort.NewDynamicAdvancedSession(path, inputNames, outputNames, so)
		if err != nil {
			e.Close()
			return err
		}
		e.sessions <- s
		e.nSessions++
	}
	return nil
}

// The model's inputs and output, as in the Xenova exports: int64
// [batch, tokens] each, and float32 [batch, tokens, Dim].
var (
	inputNames  = []string{"input_ids", "attention_mask", "token_type_ids"}
	outputNames = []string{"last_hidden_state"}
)

// Close waits for running batches to finish and frees the sessions. Embed
// after Close returns an error. Close returns nil; it is safe to call twice.
func (e *Embedder) Close() error {
	e.closeOnce.Do(func() {
		for range e.nSessions {
			s := <-e.sessions
			s.Destroy()
		}
		if e.sessions != nil {
			close(e.sessions)
		}
	})
	return nil
}

// Name returns "onnx-<model>-<dim>", e.g. "onnx-all-minilm-l6-v2-q-384",
// followed by "-t<MaxTokens>" when MaxTokens is not the Spec's: the setting
// that changes a long text's vector.
func (e *Embedder) Name() string { return e.name }

// Dim returns the vector length, 384 for every model of Specs.
func (e *Embedder) Dim() int { return e.spec.Dim }

// Spec returns the model's Spec.
func (e *Embedder) Spec() Spec { return e.spec }

// MaxTokens returns the input length in effect, in tokens.
func (e *Embedder) MaxTokens() int { return e.maxTokens }

// Embed returns the unit vector of each passage, in order, each text put
// after the model's PassagePrefix. It checks ctx before each batch and
// returns a nil result and an error wrapping ctx.Err() once it is done; other
// errors are ONNX Runtime's, wrapped with the model's name.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.embed(ctx, texts, e.spec.PassagePrefix)
}

// EmbedQueries is Embed for questions: each text is put after the model's
// QueryPrefix ("query: " for e5-small-v2, the retrieval instruction for
// bge-small-en-v1.5, nothing for all-MiniLM-L6-v2).
func (e *Embedder) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return e.embed(ctx, texts, e.spec.QueryPrefix)
}
