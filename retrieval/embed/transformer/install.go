package transformer

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// RuntimeVersion is the ONNX Runtime release New loads: its C API (version
// 22) is the one github.com/yalue/onnxruntime_go v1.21.0 is built against.
// scripts/install-model.sh puts its library at
// ModelDir/onnxruntime-1.22.1/libonnxruntime.so.1.22.1.
const RuntimeVersion = "1.22.1"

// runtimeSHA256 is the hex SHA-256 of libonnxruntime.so.1.22.1 from the
// PyPI wheel onnxruntime 1.22.1 (cp311, manylinux_2_28_x86_64).
const runtimeSHA256 = "ad9665887025474170d3e71cd28021e7e811c5bf201bc365f953e34a2c4989cc"

// runtimeFile is the library's path under ModelDir.
const runtimeFile = "onnxruntime-" + RuntimeVersion + "/libonnxruntime.so." + RuntimeVersion

// ErrNotInstalled is matched (errors.Is) by every error New returns because
// a model file or the ONNX Runtime library is missing or not the pinned
// file; the error is a *NotInstalledError naming the install command.
var ErrNotInstalled = errors.New("not installed")

// A NotInstalledError says which file New could not use and how to install
// it. It matches ErrNotInstalled.
type NotInstalledError struct {
	Model string // the model New was asked for; the argument of the install command
	Path  string // the file missing or different
	Err   error  // why: a *fs.PathError, or a hash mismatch
}

func (e *NotInstalledError) Error() string {
	return fmt.Sprintf("transformer: model %s: %s: %v (install it with: %s)", e.Model, e.Path, e.Err, InstallCommand(e.Model))
}

func (e *NotInstalledError) Unwrap() error { return e.Err }

// Is reports whether target is ErrNotInstalled.
func (e *NotInstalledError) Is(target error) bool { return target == ErrNotInstalled }

// InstallCommand is the shell command that installs model name and the ONNX
// Runtime library, run from the repository root; with RAGBOT_MODEL_DIR set
// it installs there ("RAGBOT_MODEL_DIR=DIR bash scripts/install-model.sh
// NAME"), where New looks.
func InstallCommand(name string) string {
	cmd := "bash scripts/install-model.sh " + name
	if d := os.Getenv("RAGBOT_MODEL_DIR"); d != "" {
		cmd = "RAGBOT_MODEL_DIR=" + d + " " + cmd
	}
	return cmd
}

// DefaultModelDir is where scripts/install-model.sh puts models when
// ModelDir is empty: $RAGBOT_MODEL_DIR, else $XDG_CACHE_HOME/ragbot/models,
// else ~/.cache/ragbot/models. It returns an error only when none of these
// is set and the home directory is unknown.
func DefaultModelDir() (string, error) {
	if d := os.Getenv("RAGBOT_MODEL_DIR"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "ragbot", "models"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("transformer: no model directory: RAGBOT_MODEL_DIR, XDG_CACHE_HOME and HOME are unset: %w", err)
	}
	return filepath.Join(home, ".cache", "ragbot", "models"), nil
}

// checkFile returns a *NotInstalledError unless path is a file with the hex
// SHA-256 want. Hashing reads the whole file: about 0.1 s for 34 MB.
func checkFile(model, path, want string) error {
	f, err := os.Open(path)
	if err != nil {
		return &NotInstalledError{Model: model, Path: path, Err: errors.Unwrap(err)}
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("transformer: model %s: %w", model, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return &NotInstalledError{Model: model, Path: path, Err: fmt.Errorf("sha256 %s, want the pinned %s", got, want)}
	}
	return nil
}
