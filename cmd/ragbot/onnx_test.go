package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingModelNamesInstallCommand: with embedder.semantic of kind onnx
// and no model installed, validate and version say which model is missing
// and the command that installs it there, and ask refuses to start with the same
// words, naming the config field.
func TestMissingModelNamesInstallCommand(t *testing.T) {
	models := t.TempDir() // empty: nothing installed
	t.Setenv("RAGBOT_MODEL_DIR", models)
	dir := t.TempDir()
	path := filepath.Join(dir, "ragbot.yaml")
	cfg := "weaviate:\n  port: 1\n  data_dir: " + dir + "/wv\nembedder:\n  kind: offline\n  semantic:\n    kind: onnx\n    model: all-minilm-l6-v2-q\n" +
		"sources:\n  - name: docs\n    kind: markdown\n    path: " + dir + "\n"
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// The command installs where ragbot looks.
	install := "RAGBOT_MODEL_DIR=" + models + " bash scripts/install-model.sh all-minilm-l6-v2-q"
	code, _, errOut := ragbot(t, "validate", "--config", path)
	if code != 1 || !strings.Contains(errOut, "embedder.semantic.model") || !strings.Contains(errOut, install) {
		t.Errorf("validate: exit %d, stderr %q; want 1, naming embedder.semantic.model and %q", code, errOut, install)
	}
	code, out, _ := ragbot(t, "version", "--config", path)
	if code != 0 || !strings.Contains(out, "semantic embedder onnx all-minilm-l6-v2-q") || !strings.Contains(out, "not installed: "+install) {
		t.Errorf("version: exit %d, stdout %q; want the model named, not installed, with %q", code, out, install)
	}
	code, _, errOut = ragbot(t, "ask", "--config", path, "where is the retry?")
	if code == 0 || !strings.Contains(errOut, install) {
		t.Errorf("ask: exit %d, stderr %q; want a failure naming %q", code, errOut, install)
	}
}
