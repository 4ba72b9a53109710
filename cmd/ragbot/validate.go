package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ragbot/ragbot/internal/humanize"
)

const validateAbout = `ragbot validate loads the config file, checks every field and exits: 0 when it
is valid, 1 with one line per problem otherwise. It starts and contacts nothing.

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
	fmt.Fprintf(stdout, "%s: valid, %s\n", cf.config, humanize.Plural(len(cfg.Sources), "source"))
	return nil
}
