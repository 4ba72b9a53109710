package main

import (
	"path/filepath"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/ingest/code"
)

// newIndexer is the indexer of the config, shared by index, ask --index and
// serve: source locks in indexing.repos_dir/locks, so that runs of one
// source in different processes never overlap.
func newIndexer(a *app) *ingest.Indexer {
	return &ingest.Indexer{
		Store: a.store, Embedder: a.embedder, Log: a.log, Workers: a.cfg.Indexing.Workers,
		MaxInputTokens: a.cfg.Embedder.MaxInputTokens,
		Code:           codeOptions(a.cfg),
		LockDir:        filepath.Join(a.cfg.Resolve(a.cfg.Indexing.ReposDir), "locks"),
		OnRun:          a.onRun,
		Redact:         a.redactor,
	}
}

// codeOptions are the code chunker's sizes of indexing.max_symbol_lines and
// indexing.window_lines.
func codeOptions(cfg *config.Config) code.Options {
	return code.Options{MaxLines: cfg.Indexing.MaxSymbolLines, WindowLines: cfg.Indexing.WindowLines}
}
