package transformer

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
)

// requireEnv is the variable that turns a missing model from a skip into a
// failure: CI sets it to 1 after running scripts/install-model.sh, which
// installs DefaultModel. Other models always skip when missing.
const requireEnv = "RAGBOT_REQUIRE_MODEL"

// embedders caches one Embedder per name and options for the package's
// tests, so that each model is loaded once; they live until the process
// exits.
var embedders struct {
	sync.Mutex
	m map[string]*Embedder
}

// installed returns the embedder of model name with opts. When the model or
// the runtime is not installed it skips the test, naming the install
// command, or fails it when name is DefaultModel and RAGBOT_REQUIRE_MODEL=1.
func installed(t testing.TB, name string, opts Options) *Embedder {
	t.Helper()
	embedders.Lock()
	defer embedders.Unlock()
	key := fmt.Sprintf("%s %+v", name, opts)
	if e := embedders.m[key]; e != nil {
		return e
	}
	e, err := New(name, opts)
	if errors.Is(err, ErrNotInstalled) {
		if name == DefaultModel && os.Getenv(requireEnv) == "1" {
			t.Fatalf("%s=1 but: %v", requireEnv, err)
		}
		t.Skipf("%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if embedders.m == nil {
		embedders.m = make(map[string]*Embedder)
	}
	embedders.m[key] = e
	return e
}
