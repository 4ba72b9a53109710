package main

import (
	"context"
	"io"
	"os"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/internal/version"
)

const versionAbout = `ragbot version prints ragbot's version and commit (as scripts/build.sh stamped
them, else from the build info), the Go version, and, when the config file is
found, the configured embedder and the version of the Weaviate server if it
already answers (with weaviate.urls, the first node that accepts a
connection, as every command uses). It starts no server.

Example:
  ragbot version --config ragbot.yaml`

func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newFlags("version", versionAbout, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	version.PrintBuild(stdout, version.Stamp{Version: stampedVersion, Commit: stampedCommit, Modified: stampedModified == "true"})
	if _, err := os.Stat(cf.config); err != nil {
		return nil // no config: nothing more to report
	}
	cfg, err := config.Load(cf.config)
	if err != nil {
		return err
	}
	version.PrintDeployment(ctx, stdout, cfg)
	return nil
}

// The version, commit and work tree state stamped at link time by
// scripts/build.sh (go build -ldflags "-X main.stampedCommit=SHA ..."; see
// version.Stamp). Empty, version.Build reads the build info.
var (
	stampedVersion  string // the release tag at the commit, "v1.2.0"
	stampedCommit   string // full SHA of the commit built
	stampedModified string // "true" when the work tree had changes
)
