package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// gitRepo runs the git CLI in one repository. The CLI is used rather than a
// Go reimplementation because it is what the repositories were written with:
// same ref resolution, packs, and rename detection.
type gitRepo struct {
	dir string
}

// run returns git's stdout; the error carries its stderr.
func (g gitRepo) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", g.dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// head resolves branch ("" for the checked-out HEAD) to a full commit SHA and
// the branch's name. When that fails, the error says whether the folder is
// not a git repository or the repository has no commits yet, rather than
// only that the branch is missing.
func (g gitRepo) head(ctx context.Context, branch string) (sha, name string, err error) {
	if branch == "" {
		// One git process in the usual case, since answers read every
		// source's head (BranchFreshness): the commit HEAD resolves to and
		// the full name of the ref it points to, "HEAD" when detached
		// (git-rev-parse(1), --symbolic-full-name). Anything else (no
		// commit yet, HEAD on a ref outside refs/heads) takes the lookups
		// below, which also word the errors.
		if out, err := g.run(ctx, "rev-parse", "HEAD^{commit}", "--symbolic-full-name", "HEAD"); err == nil {
			if f := strings.Fields(string(out)); len(f) == 2 && (f[1] == "HEAD" || strings.HasPrefix(f[1], "refs/heads/")) {
				return f[0], strings.TrimPrefix(f[1], "refs/heads/"), nil
			}
		}
		out, err := g.run(ctx, "symbolic-ref", "--short", "-q", "HEAD")
		if err == nil {
			branch = strings.TrimSpace(string(out))
		} else {
			branch = "HEAD" // detached
		}
	}
	// A branch is looked up as refs/heads/<branch> first: git's own lookup
	// (gitrevisions(7)) prefers refs/tags/<branch>, so a tag named like the
	// branch would win. Anything else (HEAD, a remote-tracking ref, a SHA)
	// falls back to that lookup.
	out, err := g.run(ctx, "rev-parse", "--verify", "-q", "refs/heads/"+branch+"^{commit}")
	if err != nil {
		out, err = g.run(ctx, "rev-parse", "--verify", "-q", branch+"^{commit}")
	}
	if err != nil {
		if _, err := g.run(ctx, "rev-parse", "--git-dir"); err != nil {
			return "", "", fmt.Errorf("%s is not a git repository (for a plain folder of docs use kind: markdown): %w", g.dir, err)
		}
		if _, any := g.run(ctx, "rev-parse", "--verify", "-q", "HEAD^{commit}"); any != nil {
			if refs, _ := g.run(ctx, "for-each-ref", "--count=1"); len(bytes.TrimSpace(refs)) == 0 {
				return "", "", fmt.Errorf("the repository %s %w: commit something, then index", g.dir, errEmptyRepository)
			}
		}
		return "", "", fmt.Errorf("branch %q %w: %w", branch, errBranchNotFound, err)
	}
	return strings.TrimSpace(string(out)), branch, nil
}

// Errors of head that IndexRepo skips with a warning rather than fail the
// run of the source: there is nothing to index (yet, or any more).
var (
	errBranchNotFound  = errors.New("not found")
	errEmptyRepository = errors.New("has no commits yet")
)

// treeEntry is one blob of `git ls-tree -r -l`.
type treeEntry struct {
	mode string
	blob string
	size int64
	path string
}

// files lists the regular files (mode 100644/100755) of commit; symlinks and
// submodules are left out.
func (g gitRepo) files(ctx context.Context, commit string) ([]treeEntry, error) {
	out, err := g.run(ctx, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
	if err != nil {
		return nil, err
	}
	var entries []treeEntry
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta)) // mode type object size
		if len(f) != 4 || f[1] != "blob" || (f[0] != "100644" && f[0] != "100755") {
			continue
		}
		size, _ := strconv.ParseInt(f[3], 10, 64)
		entries = append(entries, treeEntry{mode: f[0], blob: f[2], size: size, path: string(path)})
	}
	return entries, nil
}

// catFile streams blob contents through one `git cat-file --batch` process.
// It is not safe for concurrent use; Close it when done.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (g gitRepo) catFile(ctx context.Context) (*catFile, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", g.dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}, nil
}

func (c *catFile) Close() error {
	c.in.Close()
	return c.cmd.Wait()
}

func splitNUL(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// BranchHead returns the commit SHA at the head of branch in the repository
// at dir ("" for the checked-out branch) and the branch's name.
func BranchHead(ctx context.Context, dir, branch string) (sha, name string, err error) {
	return gitRepo{dir: dir}.head(ctx, branch)
}
