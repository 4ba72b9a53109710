package ingest

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress prints "files 120/430  chunks 2100  skipped 3  stored 1800" lines
// for a long index run: rewritten in place on a terminal, one line per
// interval otherwise. Its methods are safe for concurrent use.
type progress struct {
	mu                                      sync.Mutex
	w                                       io.Writer
	tty                                     bool
	every                                   time.Duration
	last                                    time.Time
	source                                  string
	total, files, chunks, skipped, embedded int
	line                                    func() string // the line to print instead, when set; called under mu
}

func (ix *Indexer) newProgress(source string, total int) *progress {
	every := ix.ProgressEvery
	if every == 0 {
		every = 500 * time.Millisecond
		if !ix.ProgressTTY {
			every = 10 * time.Second
		}
	}
	return &progress{w: ix.Progress, tty: ix.ProgressTTY, every: every, source: source, total: total, last: time.Now()}
}

func (p *progress) add(files, chunks int, skipped bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files += files
	p.chunks += chunks
	if skipped {
		p.skipped++
	}
	p.maybePrint()
}

func (p *progress) stored(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.embedded += n
	p.maybePrint()
}

// storedTotal sets the count stored so far to n.
func (p *progress) storedTotal(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.embedded = n
	p.maybePrint()
}

func (p *progress) maybePrint() {
	if p.w == nil || time.Since(p.last) < p.every {
		return
	}
	p.last = time.Now()
	p.print()
}

func (p *progress) print() {
	var line string
	if p.line != nil {
		line = p.line()
	} else {
		line = fmt.Sprintf("%s: files %d/%d  chunks %d  skipped %d  embedded %d",
			p.source, p.files, p.total, p.chunks, p.skipped, p.embedded)
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// done ends the progress display (a final newline on a terminal).
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil && p.tty {
		p.print()
		fmt.Fprintln(p.w)
	}
}
