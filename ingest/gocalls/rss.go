package gocalls

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

// sampleRSS starts sampling this process's resident set every 50 ms; the
// function it returns stops the sampling and returns the largest value
// seen, in bytes (0 where /proc is missing).
func sampleRSS() func() int64 {
	var (
		mu   sync.Mutex
		peak = selfRSS()
		stop = make(chan struct{})
		done = make(chan struct{})
	)
	go func() { // exits when stop is closed
		defer close(done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				v := selfRSS()
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	}()
	return func() int64 {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return max(peak, selfRSS())
	}
}

// selfRSS is VmRSS of /proc/self/status (proc(5)), in bytes, or 0.
func selfRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// gcPercent is the garbage collector's setting (runtime/debug.SetGCPercent)
// while Resolve runs, unless the process's is lower or off: what a
// resolution holds is mostly live, the declarations of a module's
// dependency graph (164 MB for prometheus v0.54.1), and at the default of
// 100 the heap grows to twice that before each collection.
const gcPercent = 50

var gc struct {
	sync.Mutex
	users int // Resolve calls running
	old   int // the setting before the first of them
}

// lowerGC sets gcPercent for the time of a Resolve; the function it
// returns puts the setting back when the last running Resolve calls it.
func lowerGC() (restore func()) {
	gc.Lock()
	defer gc.Unlock()
	if gc.users == 0 {
		gc.old = debug.SetGCPercent(gcPercent)
		if gc.old < gcPercent { // lower already, or off (-1)
			debug.SetGCPercent(gc.old)
		}
	}
	gc.users++
	return func() {
		gc.Lock()
		defer gc.Unlock()
		if gc.users--; gc.users == 0 {
			debug.SetGCPercent(gc.old)
		}
	}
}
