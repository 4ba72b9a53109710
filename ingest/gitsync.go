package ingest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ragbot/ragbot/config"
)

// Remote is a repository that ragbot clones and fetches itself.
type Remote struct {
	// URL is https://host/org/repo.git, ssh://..., git@host:org/repo.git or
	// file://...; it never holds credentials (config validation refuses
	// them) and may therefore appear in errors.
	URL string
	// Token, when set, is sent to an http(s) URL as the password of HTTP
	// basic auth, in a header that git receives through its environment
	// (never on a command line, in a file or in .git/config).
	Token config.Secret
	// TokenUser is the basic-auth user name sent with Token
	// ["x-access-token", which GitHub requires for app tokens and GitLab and
	// Gitea accept with a personal access token; Bitbucket Cloud access
	// tokens want "x-token-auth"].
	TokenUser string
}

// Sync makes dir a bare clone of r holding branches at their remote heads:
// git init on first use, then one `git fetch` of exactly those branches,
// forced, so that a force push replaces the old history. With no branches it
// fetches the remote's default branch (its HEAD) and points the clone's
// HEAD at it. It returns the branches fetched: those of branches that exist
// on the remote (`git ls-remote --heads`), none for an empty repository.
// Errors name the URL and the branch, and never hold the token.
func (r Remote) Sync(ctx context.Context, dir string, branches []string) ([]string, error) {
	if err := r.init(ctx, dir); err != nil {
		return nil, err
	}
	heads, err := r.heads(ctx, dir)
	if err != nil {
		return nil, err
	}
	if len(heads) == 0 {
		return nil, nil // an empty repository
	}
	if len(branches) == 0 {
		def, err := r.defaultBranch(ctx, dir)
		if err != nil {
			return nil, err
		}
		branches = []string{def}
		if _, err := r.git(ctx, dir, "symbolic-ref", "HEAD", "refs/heads/"+def); err != nil {
			return nil, err
		}
	}
	found := slices.DeleteFunc(slices.Clone(branches), func(b string) bool { return !heads[b] })
	if len(found) == 0 {
		return nil, nil
	}
	args := []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "origin"}
	for _, b := range found {
		args = append(args, "+refs/heads/"+b+":refs/heads/"+b)
	}
	if _, err := r.git(ctx, dir, args...); err != nil {
		return nil, fmt.Errorf("fetch %s: %w", strings.Join(found, ", "), err)
	}
	return found, nil
}

// heads returns the branches of the remote.
func (r Remote) heads(ctx context.Context, dir string) (map[string]bool, error) {
	out, err := r.git(ctx, dir, "ls-remote", "--heads", "origin")
	if err != nil {
		return nil, fmt.Errorf("list branches: %w", err)
	}
	heads := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if _, ref, ok := strings.Cut(line, "\t"); ok {
			if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
				heads[b] = true
			}
		}
	}
	return heads, nil
}

// dropBranch deletes branch from the clone in dir, if it is there.
func (r Remote) dropBranch(ctx context.Context, dir, branch string) error {
	if _, err := r.git(ctx, dir, "show-ref", "--verify", "--quiet", "refs/heads/"+branch); err != nil {
		return nil // not in the clone
	}
	_, err := r.git(ctx, dir, "update-ref", "-d", "refs/heads/"+branch)
	return err
}

// init creates the bare repository with its origin, once.
func (r Remote) init(ctx context.Context, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err == nil {
		_, err := r.git(ctx, dir, "remote", "set-url", "origin", r.URL)
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("clone %s: %w", r.URL, err)
	}
	if _, err := r.git(ctx, dir, "init", "--quiet", "--bare"); err != nil {
		return err
	}
	_, err := r.git(ctx, dir, "remote", "add", "origin", r.URL)
	return err
}

// symrefHead reads `git ls-remote --symref origin HEAD`: "ref: refs/heads/main\tHEAD".
var symrefHead = regexp.MustCompile(`(?m)^ref: refs/heads/(\S+)\tHEAD$`)

func (r Remote) defaultBranch(ctx context.Context, dir string) (string, error) {
	out, err := r.git(ctx, dir, "ls-remote", "--symref", "origin", "HEAD")
	if err != nil {
		return "", fmt.Errorf("default branch: %w", err)
	}
	m := symrefHead.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("default branch of %s: the remote names no HEAD branch; list branches in the config", r.URL)
	}
	return string(m[1]), nil
}

// git runs git in dir with the token in its environment and returns stdout.
// The error carries git's stderr with the token and its header scrubbed.
func (r Remote) git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), r.env()...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := fmt.Sprintf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		return nil, fmt.Errorf("%s: %s", r.URL, r.scrub(msg))
	}
	return out, nil
}

// env is what git needs to fetch without a terminal, and the token as an
// http.<origin>.extraHeader scoped to the remote's origin, passed with
// GIT_CONFIG_COUNT (git >= 2.31) so that it is in no file and no argv.
func (r Remote) env() []string {
	env := []string{"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GCM_INTERACTIVE=never"}
	if r.Token == "" {
		return env
	}
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return env
	}
	return append(env, "GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=http."+u.Scheme+"://"+u.Host+"/.extraHeader",
		"GIT_CONFIG_VALUE_0=Authorization: Basic "+r.basic())
}

func (r Remote) basic() string {
	user := cmp.Or(r.TokenUser, "x-access-token")
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + r.Token.Reveal()))
}

// scrub removes the token, in clear and inside its basic-auth header, from s.
func (r Remote) scrub(s string) string {
	if r.Token == "" {
		return s
	}
	return strings.NewReplacer(r.Token.Reveal(), "[redacted]", r.basic(), "[redacted]").Replace(s)
}

// CloneDir returns where the clone of the source called name lives under
// root: a readable name plus a hash, since names may hold "/" or "@"
// ("github.com/org/repo@v1").
func CloneDir(root, name string) string {
	safe := regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(name, "_")
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(root, safe+"-"+hex.EncodeToString(sum[:4])+".git")
}
