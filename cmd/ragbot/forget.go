package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ragbot/ragbot/internal/forget"
)

const forgetAbout = `ragbot forget deletes chunks from the index, and the stored votes that cite
them, or a person's stored questions and votes:

  --source NAME         every chunk of the source on every branch, and its index
                        state (also a source no longer in the config)
  --source NAME --branch B
                        the chunks and index state of one branch
  --path GLOB           the chunks of the files the glob matches, on every branch
                        (repeatable; * stays within a folder, ** spans folders, a
                        glob matching a folder takes what is under it:
                        config/secrets/*.yml, **/fixtures/**); with --source
                        and --branch, only there
  --page ID             the chunks of a Confluence page (its page id, found by
                        listing the configured spaces, or its path SPACE/Title
                        as cited; repeatable)
  --user ID             every vote (question, channel, time) by the chat user
                        id (Slack U0123ABC, a Teams user id)

Every branch has its own copy of a chunk, so --path deletes each branch's
and --branch only that branch's. Votes whose answer showed a deleted file
are deleted too (not with --branch, as the other branches still have the
file). It prints what it deleted by source and path; --dry-run prints the
same and deletes nothing. Forgetting twice deletes nothing the second time.
A --source name that is neither configured nor in the index (no chunks, no
index state) is an error, exit 1, naming the closest configured source: a
typo, or a source taken out of the config and already forgotten.

A forgotten file that is still in the source comes back when it is
indexed again: for git, at the next full run (ragbot index --full, a config
change of the source, a force push) or when a commit changes the file (an
incremental run reads only the diff, and an unchanged branch is skipped);
a markdown folder at the next ragbot index; a Confluence page at the next
sync. --exclude prints the config line that keeps the files out for good
(ragbot never writes the config). A forgotten branch still listed in
sources[].branches is indexed again at the next run.

Examples:
  ragbot forget --config ragbot.yaml --path 'config/secrets/*.yml' --dry-run
  ragbot forget --config ragbot.yaml --source payments --path '**/fixtures/**' --exclude
  ragbot forget --config ragbot.yaml --source old-wiki
  ragbot forget --config ragbot.yaml --user U0123ABC`

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func runForget(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var req forget.Request
	fs, cf := newFlags("forget", forgetAbout, stderr)
	fs.StringVar(&req.Source, "source", "", "forget this source's chunks (a configured `name`, or one no longer configured)")
	fs.StringVar(&req.Branch, "branch", "", "with --source: only this `branch`")
	fs.Var((*listFlag)(&req.Paths), "path", "forget the chunks of the files this `glob` matches (repeatable)")
	fs.Var((*listFlag)(&req.Pages), "page", "forget the chunks of this Confluence page: page `id` or SPACE/Title (repeatable)")
	fs.StringVar(&req.User, "user", "", "forget the stored questions and votes of this chat user `id`")
	fs.BoolVar(&req.DryRun, "dry-run", false, "print what would be deleted; delete nothing")
	fs.BoolVar(&req.Exclude, "exclude", false, "with --path: print the sources[].exclude line that keeps the files out of later runs")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkForget(req, fs.Args()); err != nil {
		return err
	}
	a, err := openApp(ctx, *cf, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	return forgetterOf(a).Forget(ctx, req, stdout)
}

// checkForget reports the usage errors of a request.
func checkForget(r forget.Request, rest []string) error {
	switch {
	case len(rest) > 0:
		return fmt.Errorf("%w: forget takes no arguments, got %q (a glob goes after --path)", errUsage, rest)
	case r.Source == "" && len(r.Paths) == 0 && len(r.Pages) == 0 && r.User == "":
		return fmt.Errorf("%w: forget needs --source, --path, --page or --user (-h for help)", errUsage)
	case r.Branch != "" && r.Source == "":
		return fmt.Errorf("%w: --branch needs --source", errUsage)
	case r.Exclude && len(r.Paths) == 0:
		return fmt.Errorf("%w: --exclude prints the exclude line of --path globs; give --path", errUsage)
	}
	for _, p := range r.Paths {
		if p == "" || !doublestar.ValidatePattern(p) {
			return fmt.Errorf("%w: --path %q is not a valid glob", errUsage, p)
		}
	}
	return nil
}

// forgetterOf is the forget.Forgetter of a's store and config, for forget
// and for index's report or prune of the unconfigured sources.
func forgetterOf(a *app) *forget.Forgetter {
	return &forget.Forgetter{Store: a.store, Config: a.cfg, Sources: a.sources(), Stderr: a.stderr}
}
