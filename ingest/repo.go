package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/ragbot/ragbot/config"
)

// Repo is one configured git source as the sync-and-index loop sees it.
type Repo struct {
	// Name is the source's configured name; it names its lock file.
	Name string
	// Source says what to index. Dir is the work tree of a local repository,
	// or the bare clone of a remote one (see CloneDir); Branch is ignored.
	Source GitSource
	// Branches are the tracked branches; empty means the default one: the
	// checked-out branch of a local repository, the remote's HEAD otherwise.
	Branches []string
	// Remote is fetched before each run; nil for a local repository, which
	// ragbot reads but never changes (whoever updates it should also poll
	// or call the webhook).
	Remote *Remote
	// Poll is how often the loop checks the source for new commits; 0 for
	// never (webhooks only).
	Poll time.Duration
	// WebhookSecret verifies push deliveries for this source: the GitHub
	// webhook secret or the GitLab secret token. Empty refuses them all.
	WebhookSecret config.Secret
	// URLs are the repository's addresses (clone URL, web URL) that a
	// webhook payload may name, for deliveries posted to the handler's root
	// rather than to .../<Name>.
	URLs []string
}

// tracks reports whether branch is tracked; with no configured branches,
// def (the default branch named by a webhook payload) is the one.
func (r Repo) tracks(branch, def string) bool {
	if len(r.Branches) == 0 {
		return branch != "" && branch == def
	}
	return slices.Contains(r.Branches, branch)
}

// IndexRepo runs one index run of r: it takes the source's lock (see
// Indexer.LockDir), fetches a remote source, then indexes each of branches
// (nil: every tracked branch) with IndexGit. A failing branch does not stop
// the others; the errors are joined. A branch that does not exist (deleted
// on the remote, or never pushed) and an empty repository are skipped with
// a warning, not failed: there is nothing to index. An indexed branch found
// missing, and, in a run of every tracked branch, an indexed branch that r
// no longer tracks, are removed from the index (see DeleteBranch); each
// comes back as a Stats with Removed set, after those of the indexed
// branches. Asking for a branch that r does not track is an error.
func (ix *Indexer) IndexRepo(ctx context.Context, r Repo, branches []string, full bool) ([]Stats, error) {
	for _, b := range branches {
		if len(r.Branches) > 0 && !slices.Contains(r.Branches, b) {
			return nil, fmt.Errorf("ingest: %s: branch %q is not tracked (tracked: %v)", r.Source.ID, b, r.Branches)
		}
	}
	all := len(branches) == 0
	if all {
		branches = r.Branches
	}
	log := ix.log().With("source", r.Source.ID)
	var gone []string // branches found missing
	unlock, err := lockSource(ctx, ix.LockDir, r.Name, ix.after)
	if err != nil {
		return nil, fmt.Errorf("ingest: %s: %w", r.Source.ID, err)
	}
	defer unlock()
	if r.Remote != nil {
		fetched, err := r.Remote.Sync(ctx, r.Source.Dir, branches)
		if err != nil {
			return nil, fmt.Errorf("ingest: %s: %w", r.Source.ID, err)
		}
		for _, b := range branches {
			if !slices.Contains(fetched, b) {
				log.Warn("branch not found on the remote, skipped", "branch", b, "url", r.Remote.URL)
				gone = append(gone, b)
			}
		}
		if len(fetched) == 0 && len(branches) == 0 {
			log.Warn("the remote repository is empty, nothing to index", "url", r.Remote.URL)
		}
		branches = fetched
	}
	if len(branches) == 0 && r.Remote == nil {
		branches = []string{""} // the checked-out branch
	}
	var (
		out  []Stats
		errs []error
	)
	for _, b := range branches {
		src := r.Source
		src.Branch = b
		st, err := ix.IndexGit(ctx, src, full)
		switch {
		case errors.Is(err, errBranchNotFound) || errors.Is(err, errEmptyRepository):
			log.Warn("nothing to index, skipped", "branch", b, "err", err)
			gone = append(gone, b)
		case err != nil:
			errs = append(errs, err)
			if ctx.Err() != nil {
				return out, errors.Join(errs...)
			}
			if _, partial := errors.AsType[*UnembeddedError](err); partial {
				out = append(out, st) // stored but for the files named in err
			}
		default:
			out = append(out, st)
		}
	}
	removed, err := ix.dropBranches(ctx, log, r, gone, all)
	if err != nil {
		errs = append(errs, err)
	}
	return append(out, removed...), errors.Join(errs...)
}

// Why IndexRepo removed a branch from the index, in Stats.Removed.
const (
	// BranchUntracked: the branch has an index state but is no longer in
	// the source's configured branches.
	BranchUntracked = "branch no longer configured"
	// BranchGone: a tracked branch no longer exists in the repository (or
	// on the remote).
	BranchGone = "branch gone from the repository"
)

// dropBranches removes from the index (chunks and state) the indexed
// branches of r that are in gone and, when all is set, those that r no
// longer tracks, and returns a Stats (Removed, Deleted) for each. The
// caller holds the source's lock.
func (ix *Indexer) dropBranches(ctx context.Context, log *slog.Logger, r Repo, gone []string, all bool) ([]Stats, error) {
	if len(gone) == 0 && (!all || len(r.Branches) == 0) {
		return nil, nil // with no configured branches, the tracked one is whatever the default is
	}
	indexed, err := ix.Store.StateBranches(ctx, r.Source.ID)
	if err != nil {
		return nil, fmt.Errorf("ingest: %s: %w", r.Source.ID, err)
	}
	var out []Stats
	for _, b := range indexed {
		why := ""
		switch {
		case slices.Contains(gone, b):
			why = BranchGone
		case all && len(r.Branches) > 0 && !slices.Contains(r.Branches, b):
			why = BranchUntracked
		default:
			continue
		}
		n, err := ix.Store.DeleteBranch(ctx, r.Source.ID, b)
		if err != nil {
			return out, fmt.Errorf("ingest: %s@%s: %w", r.Source.ID, b, err)
		}
		log.Info(why+", removed from the index", "branch", b, "chunks", n)
		out = append(out, Stats{Source: r.Source.ID, Branch: b, Removed: why, Deleted: n})
	}
	return out, nil
}

// DeleteBranch removes a deleted branch of r from the index: its chunks and
// its SourceState, under the source's lock (see IndexRepo), and the branch
// from ragbot's clone of a remote source (a local repository is never
// changed). It returns how many chunks it deleted.
func (ix *Indexer) DeleteBranch(ctx context.Context, r Repo, branch string) (int, error) {
	unlock, err := lockSource(ctx, ix.LockDir, r.Name, ix.after)
	if err != nil {
		return 0, fmt.Errorf("ingest: %s: %w", r.Source.ID, err)
	}
	defer unlock()
	n, err := ix.Store.DeleteBranch(ctx, r.Source.ID, branch)
	if err != nil {
		return n, fmt.Errorf("ingest: %s@%s: %w", r.Source.ID, branch, err)
	}
	if r.Remote != nil {
		if err := r.Remote.dropBranch(ctx, r.Source.Dir, branch); err != nil {
			ix.log().Warn("could not remove the deleted branch from the clone", "source", r.Source.ID, "branch", branch, "err", err)
		}
	}
	ix.log().Info("deleted branch removed from the index", "source", r.Source.ID, "branch", branch, "chunks", n)
	return n, nil
}

// lockSource takes an exclusive advisory lock (flock) on dir/<name>.lock so
// that index runs of one source never overlap, even across processes (a
// `ragbot index` while `ragbot serve` runs). It waits, checking every 100 ms
// (each wait is after(100ms)), until it has the lock or ctx ends. With dir ""
// it locks nothing. The returned func releases the lock.
func lockSource(ctx context.Context, dir, name string, after func(time.Duration) <-chan time.Time) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	path := filepath.Join(dir, filepath.Base(CloneDir("", name))+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock %s: another index run of this source is under way: %w", path, ctx.Err())
		case <-after(100 * time.Millisecond):
		}
	}
}
