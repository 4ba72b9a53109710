// Package memprofile writes the Go heap profile of a process at its peak,
// for finding what an index run holds (docs/evaluation.md, "Lean
// indexing"). It is switched on by the environment variable
// RAGBOT_MEMPROFILE=path and costs nothing otherwise.
package memprofile

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

// Env names the variable holding the profile's path.
const Env = "RAGBOT_MEMPROFILE"

// Start, when $RAGBOT_MEMPROFILE is set, samples the Go heap every 100 ms
// and, each time the bytes in heap spans in use (runtime.MemStats.HeapInuse)
// reach a new maximum, writes the heap profile (runtime/pprof "heap", read
// with `go tool pprof -sample_index=inuse_space`) to that path, and at stop
// a second one of everything allocated to path+".end". The heap profile
// samples one allocation per runtime.MemProfileRate bytes (512 KiB by
// default), so small holders are estimated. stop ends the sampling and
// reports the peak on w when w is not nil. Errors creating the file are
// printed to w and stop the sampling.
func Start(w io.Writer) (stop func()) {
	path := os.Getenv(Env)
	if path == "" {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var peak uint64
	var peakAt time.Duration
	start := time.Now()
	write := func(p string, gc bool) error {
		if gc {
			runtime.GC()
		}
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return pprof.Lookup("heap").WriteTo(f, 0)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			runtime.ReadMemStats(&ms)
			// A new peak by more than 4 MiB: profiling every small step
			// would cost more than the run.
			if ms.HeapInuse > peak+4<<20 {
				peak, peakAt = ms.HeapInuse, time.Since(start)
				if err := write(path, false); err != nil {
					if w != nil {
						fmt.Fprintf(w, "memprofile: %v\n", err)
					}
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		if err := write(path+".end", true); err != nil && w != nil {
			fmt.Fprintf(w, "memprofile: %v\n", err)
		}
		if w != nil {
			fmt.Fprintf(w, "memprofile: peak Go heap in use %d MB at %s, profile in %s\n", peak>>20, peakAt.Round(time.Millisecond), path)
		}
	}
}
