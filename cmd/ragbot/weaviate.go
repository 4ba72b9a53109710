package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ragbot/ragbot/retrieval/weaviatelocal"
)

const weaviateAbout = `ragbot weaviate runs the local Weaviate server (the embedded default) in the
foreground until interrupted, with data in weaviate.data_dir. Other ragbot
commands use it while it runs instead of starting their own.

Example:
  ragbot weaviate --config ragbot.yaml`

func runWeaviate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cf commonFlags
	fs := newFlags("weaviate", weaviateAbout, stderr)
	cf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(cf.config)
	if err != nil {
		return err
	}
	if cfg.Weaviate.URL != "" {
		return fmt.Errorf("weaviate.url is set (%s): ragbot uses that server and runs none of its own", cfg.Weaviate.URL)
	}
	log := newLogger(stderr, cf)
	fmt.Fprintln(stderr, "starting weaviate-server...")
	srv, err := weaviatelocal.Start(ctx, weaviatelocal.Options{
		Binary: cfg.Weaviate.Binary, DataDir: cfg.Resolve(cfg.Weaviate.DataDir), Port: cfg.Weaviate.Port, Logger: log,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "weaviate ready at %s (Ctrl-C to stop)\n", srv.URL)
	select {
	case <-ctx.Done():
	case <-srv.Done():
		return fmt.Errorf("weaviate-server exited; see %s/weaviate.log", cfg.Resolve(cfg.Weaviate.DataDir))
	}
	return srv.Stop(context.Background())
}
