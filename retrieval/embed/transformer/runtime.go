package transformer

import (
	"fmt"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// ortEnv is the process's one ONNX Runtime environment: onnxruntime_go keeps
// it in package state, so every Embedder shares it, and it lives until the
// process exits (destroying it under a live session would crash).
var ortEnv struct {
	sync.Mutex
	lib string // the library loaded, "" before the first success
}

// loadRuntime loads the ONNX Runtime shared library at lib and creates the
// environment, once per process. A later call with another lib is an error,
// as a process can hold only one.
func loadRuntime(lib string) error {
	ortEnv.Lock()
	defer ortEnv.Unlock()
	if ortEnv.lib != "" {
		if ortEnv.lib != lib {
			return fmt.Errorf("transformer: onnxruntime: %s is already loaded, cannot load %s too", ortEnv.lib, lib)
		}
		return nil
	}
	ort.SetSharedLibraryPath(lib)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("transformer: onnxruntime: %s: %w (want ONNX Runtime %s or later)", lib, err, RuntimeVersion)
	}
	ortEnv.lib = lib
	return nil
}
