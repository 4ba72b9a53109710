package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ragbot/ragbot/internal/embedders"
	"github.com/ragbot/ragbot/internal/humanize"
)

const validateAbout = `ragbot validate loads the config file, checks every field and exits: 0 when it
is valid, 1 with one line per problem otherwise. It starts and contacts nothing;
with an embedder of kind onnx it checks that the model and ONNX Runtime are
installed, naming the command that installs them when they are not.

Example:
  ragbot validate --config ragbot.yaml`

func runValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newFlags("validate", validateAbout, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(cf.config)
	if err != nil {
		return err
	}
	if _, err := newRedactor(cfg); err != nil { // rule ids exist (redact.go)
		return err
	}
	if err := embedders.CheckInstalled(cfg.Embedder); err != nil { // a model of kind onnx is on disk
		return err
	}
	fmt.Fprintf(stdout, "%s: valid, %s\n", cf.config, humanize.Plural(len(cfg.Sources), "source"))
	return nil
}
