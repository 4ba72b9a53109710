// Package configtest loads configs written by tests, so that a package's
// tests get a *config.Config as ragbot would load it: defaults, env
// overrides and validation applied.
package configtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ragbot/ragbot/config"
)

// Load writes body as ragbot.yaml in dir (a new temporary folder when dir
// is "") and loads it with config.Load, so that relative paths in body are
// resolved against dir. It fails the test when the file cannot be written
// or the config does not load.
func Load(t testing.TB, dir, body string) *config.Config {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, "ragbot.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
