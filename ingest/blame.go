package ingest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// lastChange is a commit as a chunk cites it: Chunk.Author is the author of
// the newest commit that changed the chunk's lines, Chunk.ModifiedAt that
// commit's commit (committer) time.
type lastChange struct {
	author string
	when   time.Time
}

// blameLines maps each line of a file at a commit to the commit that last
// changed it, as `git blame` finds it (following renames of the file).
type blameLines struct {
	line    []int32      // line (1-based) -> index into commits; index 0 unused
	commits []lastChange // in order of first appearance
}

// blame runs `git blame --incremental` (the porcelain fields, grouped) on
// path at commit: one process per file, for every symbol of it.
func (g gitRepo) blame(ctx context.Context, commit, path string) (*blameLines, error) {
	out, err := g.run(ctx, "blame", "--incremental", commit, "--", path)
	if err != nil {
		return nil, err
	}
	return parseBlame(string(out))
}

// parseBlame reads `git blame --incremental` output: per group of lines a
// header "<sha> <orig line> <final line> <count>", then, the first time a
// commit appears, its "author" and "committer-time" among other fields,
// and a closing "filename" line.
func parseBlame(out string) (*blameLines, error) {
	b := &blameLines{line: []int32{0}}
	index := map[string]int{}
	cur := -1
	for _, l := range strings.Split(out, "\n") {
		key, val, _ := strings.Cut(l, " ")
		switch {
		case cur < 0 && isObjectName(key):
			f := strings.Fields(val) // orig final count
			if len(f) != 3 {
				return nil, fmt.Errorf("git blame: bad header %q", l)
			}
			final, err1 := strconv.Atoi(f[1])
			n, err2 := strconv.Atoi(f[2])
			if err1 != nil || err2 != nil || final < 1 || n < 1 {
				return nil, fmt.Errorf("git blame: bad header %q", l)
			}
			i, ok := index[key]
			if !ok {
				i = len(b.commits)
				index[key] = i
				b.commits = append(b.commits, lastChange{})
			}
			for len(b.line) < final+n {
				b.line = append(b.line, -1)
			}
			for k := final; k < final+n; k++ {
				b.line[k] = int32(i)
			}
			cur = i
		case cur < 0:
			continue
		case key == "author":
			b.commits[cur].author = val
		case key == "committer-time":
			sec, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("git blame: bad committer-time %q", val)
			}
			b.commits[cur].when = time.Unix(sec, 0).UTC()
		case key == "filename":
			cur = -1
		}
	}
	return b, nil
}

// isObjectName reports whether s is a full object name: 40 hex digits
// (SHA-1) or 64 (SHA-256 repositories).
func isObjectName(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}

// span returns the newest commit (by commit time) among lines start..end;
// false when a line is outside the blamed file.
func (b *blameLines) span(start, end int) (lastChange, bool) {
	var best lastChange
	for l := start; l <= end; l++ {
		if l < 1 || l >= len(b.line) || b.line[l] < 0 {
			return lastChange{}, false
		}
		if c := b.commits[b.line[l]]; c.when.After(best.when) || best.when.IsZero() {
			best = c
		}
	}
	return best, true
}

// fileHistory is what a walk of the history says about one file at a
// commit: the last commit that touched it, and whether its lines may come
// from different commits, so that only those files are blamed.
type fileHistory struct {
	last    lastChange
	touches int  // commits that touched the path, counted up to 2
	blame   bool // lines may differ in origin: blame the file
}

// histories walks the history from commit, newest first, with
// `git log --no-renames --name-status` (one process for all files), and
// returns a fileHistory for each path in want. A path touched only by the
// commit that added it, in a commit that deleted nothing (so it cannot be
// the new name of a renamed file), owes every line to that commit and needs
// no blame; any other path is blamed. The walk stops as soon as every wanted
// path is known to need blame. Merge commits list no files here, so a line
// changed only while resolving a merge of a file that was added once and
// never edited is dated by the add: the one case this shortcut misses.
func (g gitRepo) histories(ctx context.Context, commit string, want map[string]bool) (map[string]*fileHistory, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", g.dir, "log", "--no-renames", "--no-show-signature", "--name-status", "-z",
		"--format=%x01%an%x02%ct", commit)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git log: %w", err)
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	res := make(map[string]*fileHistory, len(want))
	settled := 0 // wanted paths known to need blame
	type entry struct {
		status byte
		path   string
	}
	var (
		cur     lastChange
		entries []entry
	)
	apply := func() { // the commit just read: cur with entries
		deletes := false
		for _, e := range entries {
			deletes = deletes || e.status == 'D'
		}
		for _, e := range entries {
			if !want[e.path] {
				continue
			}
			h := res[e.path]
			if h == nil {
				h = &fileHistory{last: cur}
				res[e.path] = h
			}
			if h.blame {
				continue
			}
			h.touches++
			if h.touches > 1 || e.status != 'A' || deletes {
				h.blame = true
				settled++
			}
		}
		entries = entries[:0]
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	sc.Split(splitNUL)
	var status byte
	for sc.Scan() && settled < len(want) {
		tok := strings.TrimLeft(sc.Text(), "\n")
		switch {
		case tok == "":
		case tok[0] == 1: // "\x01author\x02unix-time": a new commit
			apply()
			name, ts, _ := strings.Cut(tok[1:], "\x02")
			sec, _ := strconv.ParseInt(ts, 10, 64)
			cur = lastChange{author: name, when: time.Unix(sec, 0).UTC()}
		case status == 0:
			status = tok[0]
		default:
			entries = append(entries, entry{status: status, path: tok})
			status = 0
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, context.Canceled) {
		return nil, fmt.Errorf("git log: %w", err)
	}
	apply()
	for p := range want {
		if res[p] == nil { // not seen: added by a merge; blame finds out
			res[p] = &fileHistory{blame: true}
		}
	}
	return res, nil
}
