package transformer

import (
	"fmt"
	"path/filepath"
)

// Installed checks, without loading anything, that model name and the ONNX
// Runtime library are under dir ("" means DefaultModelDir()) with their
// pinned SHA-256 hashes, as New needs them: for `ragbot validate`, `doctor`
// and `version`. Errors: an unknown name, or a *NotInstalledError
// (errors.Is(err, ErrNotInstalled)) naming the missing or altered file and
// InstallCommand(name). It reads the model files whole (about 0.1 s).
func Installed(name, dir string) error {
	spec, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("transformer: model %q is unknown, want one of %v", name, Names())
	}
	if dir == "" {
		d, err := DefaultModelDir()
		if err != nil {
			return err
		}
		dir = d
	}
	if err := checkFile(name, filepath.Join(dir, spec.Name, spec.ONNXFile()), spec.ONNXSHA256); err != nil {
		return err
	}
	if err := checkFile(name, filepath.Join(dir, spec.Name, spec.TokenizerFile()), spec.TokenizerSHA256); err != nil {
		return err
	}
	return checkFile(name, filepath.Join(dir, runtimeFile), runtimeSHA256)
}
