package memprofile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var sink [][]byte

// TestStartWritesProfiles grows the heap by 64 MB with RAGBOT_MEMPROFILE set
// and checks that a profile was written at the peak and at stop, and that the
// peak reported covers what was allocated.
func TestStartWritesProfiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.prof")
	t.Setenv(Env, path)
	var out bytes.Buffer
	stop := Start(&out)
	for range 64 {
		sink = append(sink, make([]byte, 1<<20))
	}
	time.Sleep(400 * time.Millisecond)
	stop()
	sink = nil
	for _, p := range []string{path, path + ".end"} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v, want a heap profile", p, err)
		}
	}
	if !strings.Contains(out.String(), "memprofile: peak Go heap in use") {
		t.Errorf("report %q", out.String())
	}
	var mb int
	if _, err := fmt.Sscanf(out.String(), "memprofile: peak Go heap in use %d MB", &mb); err != nil || mb < 64 {
		t.Errorf("reported peak %d MB (%v), want at least the 64 MB allocated", mb, err)
	}
}

func TestStartWithoutEnvDoesNothing(t *testing.T) {
	t.Setenv(Env, "")
	var out bytes.Buffer
	Start(&out)()
	if out.Len() != 0 {
		t.Errorf("wrote %q without %s", out.String(), Env)
	}
}
