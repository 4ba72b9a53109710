package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// fileChange is one entry of `git diff-tree --raw -M` between two commits.
// A rename has both paths; an added file has no old side, a deleted one no
// new side (empty mode and blob).
type fileChange struct {
	status           byte // A, C, D, M, R, T (git diff --name-status letters)
	oldMode, newMode string
	oldBlob, newBlob string
	oldPath, newPath string
}

// zeroSHA is what git prints for the missing side of an add or a delete.
const zeroSHA = "0000000000000000000000000000000000000000"

// isFile reports whether a tree entry mode is a regular file; symlinks
// (120000) and submodules (160000) are not indexed.
func isFile(mode string) bool { return mode == "100644" || mode == "100755" }

// diffTree lists the files that differ between the trees of two commits,
// with renames detected (git's default 50% similarity). It compares the two
// trees directly, so a merge commit, or a commit that is not a descendant,
// needs nothing special.
func (g gitRepo) diffTree(ctx context.Context, from, to string) ([]fileChange, error) {
	out, err := g.run(ctx, "diff-tree", "-r", "-z", "-M", "--raw", "--no-abbrev", from, to)
	if err != nil {
		return nil, err
	}
	return parseRawDiff(out)
}

// parseRawDiff reads `--raw -z` records:
// ":<old mode> <new mode> <old blob> <new blob> <status>[score]\0<path>\0[<new path>\0]".
func parseRawDiff(out []byte) ([]fileChange, error) {
	toks := bytes.Split(out, []byte{0})
	var changes []fileChange
	for i := 0; i < len(toks); i++ {
		meta := string(toks[i])
		if meta == "" {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(meta, ":"))
		if !strings.HasPrefix(meta, ":") || len(f) != 5 || i+1 >= len(toks) {
			return nil, fmt.Errorf("git diff-tree: unexpected record %q", meta)
		}
		c := fileChange{status: f[4][0], oldMode: f[0], newMode: f[1], oldBlob: f[2], newBlob: f[3]}
		i++
		c.oldPath, c.newPath = string(toks[i]), string(toks[i])
		if c.status == 'R' || c.status == 'C' {
			if i+1 >= len(toks) {
				return nil, fmt.Errorf("git diff-tree: rename of %q without a new path", c.oldPath)
			}
			i++
			c.newPath = string(toks[i])
		}
		if c.status == 'A' || c.status == 'C' {
			c.oldPath, c.oldMode, c.oldBlob = "", "", ""
			if c.status == 'C' { // a copy leaves its origin as it was
				c.status = 'A'
			}
		}
		if c.status == 'D' {
			c.newPath, c.newMode, c.newBlob = "", "", ""
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// hasCommit reports whether sha names a commit present in the repository
// (it may be gone after a force push and garbage collection).
func (g gitRepo) hasCommit(ctx context.Context, sha string) bool {
	_, err := g.run(ctx, "cat-file", "-e", sha+"^{commit}")
	return err == nil
}

// isAncestor reports whether commit a is an ancestor of (or equal to) b.
func (g gitRepo) isAncestor(ctx context.Context, a, b string) (bool, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", g.dir, "merge-base", "--is-ancestor", a, b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return false, nil
	default:
		return false, fmt.Errorf("git merge-base --is-ancestor %s %s: %w: %s", short(a), short(b), err, strings.TrimSpace(stderr.String()))
	}
}

// commitInfo returns the author name and the commit time of a commit: what
// chunks of a file carry when their lines cannot be blamed.
func (g gitRepo) commitInfo(ctx context.Context, sha string) (lastChange, error) {
	out, err := g.run(ctx, "log", "-1", "--no-show-signature", "--format=%an%x00%ct", sha)
	if err != nil {
		return lastChange{}, err
	}
	name, ts, _ := strings.Cut(strings.TrimSpace(string(out)), "\x00")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return lastChange{}, fmt.Errorf("git log %s: bad commit time %q", short(sha), ts)
	}
	return lastChange{author: name, when: time.Unix(sec, 0).UTC()}, nil
}

// readMax returns the content of one blob, or nil and its size when it is
// larger than limit bytes (the content is read past and dropped).
func (c *catFile) readMax(blob string, limit int64) (data []byte, size int64, err error) {
	if _, err := io.WriteString(c.in, blob+"\n"); err != nil {
		return nil, 0, fmt.Errorf("git cat-file: %w", err)
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return nil, 0, fmt.Errorf("git cat-file: %w", err)
	}
	f := strings.Fields(header) // <sha> <type> <size> | <name> missing
	if len(f) != 3 {
		return nil, 0, fmt.Errorf("git cat-file: %s", strings.TrimSpace(header))
	}
	size, err = strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("git cat-file: bad header %q", header)
	}
	if size > limit {
		if _, err := io.CopyN(io.Discard, c.out, size+1); err != nil {
			return nil, 0, fmt.Errorf("git cat-file: %w", err)
		}
		return nil, size, nil
	}
	buf := make([]byte, size+1) // content + trailing LF
	if _, err := io.ReadFull(c.out, buf); err != nil {
		return nil, 0, fmt.Errorf("git cat-file: %w", err)
	}
	return buf[:size], size, nil
}

// blobIDs resolves "<rev>:<path>" names to blob ids through one
// `git cat-file --batch-check`; a name that does not exist (the path is not
// in that commit, or the commit is gone) maps to "".
func (g gitRepo) blobIDs(ctx context.Context, names []string) (map[string]string, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", g.dir, "cat-file", "--batch-check=%(objectname) %(objecttype)")
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch-check: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(names) {
		return nil, fmt.Errorf("git cat-file --batch-check: %d answers for %d names", len(lines), len(names))
	}
	res := make(map[string]string, len(names))
	for i, l := range lines {
		sha, typ, _ := strings.Cut(l, " ")
		if typ != "blob" {
			sha = ""
		}
		res[names[i]] = sha
	}
	return res, nil
}
