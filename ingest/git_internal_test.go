package ingest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestGitHeadErrorsSayWhatIsWrong(t *testing.T) {
	ctx := context.Background()
	plain := t.TempDir()
	if err := os.WriteFile(plain+"/a.go", []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := (gitRepo{dir: plain}).head(ctx, ""); err == nil || !strings.Contains(err.Error(), "is not a git repository (for a plain folder of docs use kind: markdown)") {
		t.Errorf("plain folder: %v", err)
	}

	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=A", "-c", "user.email=a@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	if _, _, err := (gitRepo{dir: dir}).head(ctx, ""); err == nil || !strings.Contains(err.Error(), "has no commits yet") {
		t.Errorf("empty repository: %v", err)
	}

	if err := os.WriteFile(dir+"/a.go", []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "one")
	if _, _, err := (gitRepo{dir: dir}).head(ctx, "release-9"); err == nil || !strings.Contains(err.Error(), `branch "release-9" not found`) {
		t.Errorf("missing branch: %v", err)
	}
	if sha, name, err := (gitRepo{dir: dir}).head(ctx, ""); err != nil || name != "main" || sha != git("rev-parse", "HEAD") {
		t.Errorf("head = %s %s %v, want HEAD on main", sha, name, err)
	}
	// A tag named like the branch, pointing elsewhere, does not change the
	// checked-out branch's head; a detached HEAD is named HEAD.
	first := git("rev-parse", "HEAD")
	git("commit", "-q", "--allow-empty", "-m", "two")
	git("tag", "main", first)
	if sha, name, err := (gitRepo{dir: dir}).head(ctx, ""); err != nil || name != "main" || sha != git("rev-parse", "refs/heads/main") {
		t.Errorf("with a tag main at the first commit: head = %s %s %v, want the branch main at %s", sha, name, err, git("rev-parse", "refs/heads/main"))
	}
	git("checkout", "-q", "--detach", first)
	if sha, name, err := (gitRepo{dir: dir}).head(ctx, ""); err != nil || name != "HEAD" || sha != first {
		t.Errorf("detached: head = %s %s %v, want HEAD at %s", sha, name, err, first)
	}
}
