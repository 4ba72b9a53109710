package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/humanize"
	"github.com/ragbot/ragbot/internal/suggest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
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

// forgetRequest is what runForget was asked to delete.
type forgetRequest struct {
	source  string   // --source name ("" none)
	branch  string   // --branch
	paths   []string // --path globs
	pages   []string // --page ids or paths
	user    string   // --user
	dryRun  bool
	exclude bool // print the exclude config lines
}

func runForget(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cf commonFlags
	var req forgetRequest
	fs := newFlags("forget", forgetAbout, stderr)
	cf.register(fs)
	fs.StringVar(&req.source, "source", "", "forget this source's chunks (a configured `name`, or one no longer configured)")
	fs.StringVar(&req.branch, "branch", "", "with --source: only this `branch`")
	fs.Var((*listFlag)(&req.paths), "path", "forget the chunks of the files this `glob` matches (repeatable)")
	fs.Var((*listFlag)(&req.pages), "page", "forget the chunks of this Confluence page: page `id` or SPACE/Title (repeatable)")
	fs.StringVar(&req.user, "user", "", "forget the stored questions and votes of this chat user `id`")
	fs.BoolVar(&req.dryRun, "dry-run", false, "print what would be deleted; delete nothing")
	fs.BoolVar(&req.exclude, "exclude", false, "with --path: print the sources[].exclude line that keeps the files out of later runs")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := req.check(fs.Args()); err != nil {
		return err
	}
	a, err := openApp(ctx, cf, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	return forget(ctx, a, req, stdout)
}

// check reports the usage errors of a request.
func (r forgetRequest) check(rest []string) error {
	switch {
	case len(rest) > 0:
		return fmt.Errorf("%w: forget takes no arguments, got %q (a glob goes after --path)", errUsage, rest)
	case r.source == "" && len(r.paths) == 0 && len(r.pages) == 0 && r.user == "":
		return fmt.Errorf("%w: forget needs --source, --path, --page or --user (-h for help)", errUsage)
	case r.branch != "" && r.source == "":
		return fmt.Errorf("%w: --branch needs --source", errUsage)
	case r.exclude && len(r.paths) == 0:
		return fmt.Errorf("%w: --exclude prints the exclude line of --path globs; give --path", errUsage)
	}
	for _, p := range r.paths {
		if p == "" || !doublestar.ValidatePattern(p) {
			return fmt.Errorf("%w: --path %q is not a valid glob", errUsage, p)
		}
	}
	return nil
}

// forget carries out req against a's store and reports to out.
func forget(ctx context.Context, a *app, req forgetRequest, out io.Writer) error {
	verb := "forgot"
	if req.dryRun {
		verb = "would forget"
	}
	if req.source != "" || len(req.paths) > 0 || len(req.pages) > 0 {
		if err := forgetChunks(ctx, a, req, verb, out); err != nil {
			return err
		}
	}
	if req.user != "" {
		votes, err := a.store.OpenFeedback(ctx)
		if err != nil {
			return err
		}
		n, err := votes.DeleteUser(ctx, req.user, req.dryRun)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s %s of user %s (questions, channels, votes)\n", verb, humanize.Plural(n, "vote"), req.user)
	}
	if req.dryRun {
		fmt.Fprintln(out, "dry run: nothing was deleted")
	}
	return nil
}

// forgetChunks is forget's part on chunks (and the votes citing them).
func forgetChunks(ctx context.Context, a *app, req forgetRequest, verb string, out io.Writer) error {
	var ids []string // source ids in scope; nil means every source
	if req.source != "" {
		var err error
		if ids, err = storedSourceIDs(ctx, a, req.source); err != nil {
			return err
		}
	}
	if len(req.paths) == 0 && len(req.pages) == 0 {
		return forgetSources(ctx, a, ids, req, verb, out)
	}
	pagePaths := listedPages(ctx, a, ids, req.pages)
	refs, err := a.store.ChunkRefs(ctx, func(r weaviate.ChunkRef) bool {
		if (ids != nil && !slices.Contains(ids, r.Source)) || (req.branch != "" && r.Branch != req.branch) {
			return false
		}
		return slices.ContainsFunc(req.paths, func(g string) bool { return globMatches(g, r.Path) }) ||
			slices.ContainsFunc(req.pages, func(p string) bool { return pageMatches(p, r) }) ||
			pagePaths[r.Source][r.Path]
	})
	if err != nil {
		return err
	}
	type key struct{ source, path string }
	byPath := map[key]map[string]int{} // branch -> chunks
	for _, r := range refs {
		k := key{r.Source, r.Path}
		if byPath[k] == nil {
			byPath[k] = map[string]int{}
		}
		byPath[k][r.Branch]++
	}
	keys := slices.SortedFunc(maps.Keys(byPath), func(x, y key) int {
		return strings.Compare(x.source+"\x00"+x.path, y.source+"\x00"+y.path)
	})
	sources := map[string]bool{}
	for _, k := range keys {
		sources[k.source] = true
		total, parts := 0, []string{}
		for _, b := range slices.Sorted(maps.Keys(byPath[k])) {
			total += byPath[k][b]
			if b != "" {
				parts = append(parts, fmt.Sprintf("%s %d", b, byPath[k][b]))
			}
		}
		where := ""
		if len(parts) > 0 {
			where = " (" + strings.Join(parts, ", ") + ")"
		}
		fmt.Fprintf(out, "%s  %s: %s%s\n", k.source, k.path, humanize.Plural(total, "chunk"), where)
	}
	deleted := len(refs)
	if !req.dryRun && len(refs) > 0 {
		refIDs := make([]string, len(refs))
		for i, r := range refs {
			refIDs[i] = r.ID
		}
		if deleted, err = a.store.DeleteChunks(ctx, refIDs); err != nil {
			return err
		}
		if err := lowerStates(ctx, a.store, refs); err != nil {
			return err
		}
	}
	votes := 0
	if req.branch == "" && len(keys) > 0 {
		if votes, err = forgetVotes(ctx, a, req.dryRun, func(c retrieval.ShownCitation) bool {
			return byPath[key{c.Source, c.Path}] != nil
		}); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "%s %s in %s of %s; %s citing them\n", verb, humanize.Plural(deleted, "chunk"), humanize.Plural(len(keys), "path"),
		humanize.Plural(len(sources), "source"), humanize.Plural(votes, "vote"))
	if len(req.paths) > 0 && len(refs) > 0 {
		printExcludes(a.cfg, req, sources, out)
	}
	return nil
}

// forgetSources forgets whole sources (ids), or one branch of them.
func forgetSources(ctx context.Context, a *app, ids []string, req forgetRequest, verb string, out io.Writer) error {
	total := 0
	for _, id := range ids {
		if req.branch != "" {
			_, hasState, err := a.store.State(ctx, id, req.branch)
			if err != nil {
				return err
			}
			what := "" // the branch's index state is named only when there is one
			if hasState {
				what = " and the branch's index state"
			}
			var n int
			if req.dryRun { // the chunks DeleteBranch would delete; listing them reads every chunk, so only here
				var refs []weaviate.ChunkRef
				refs, err = a.store.ChunkRefs(ctx, func(r weaviate.ChunkRef) bool { return r.Source == id && r.Branch == req.branch })
				n = len(refs)
			} else {
				n, err = a.store.DeleteBranch(ctx, id, req.branch)
			}
			if err != nil {
				return err
			}
			total += n
			fmt.Fprintf(out, "%s@%s: %s%s\n", id, req.branch, humanize.Plural(n, "chunk"), what)
			if i := sourceIndex(a.cfg, id); i >= 0 && slices.Contains(a.cfg.Sources[i].Branches, req.branch) {
				fmt.Fprintf(out, "  %s is still in sources[%d].branches: the next index run indexes it again\n", req.branch, i)
			}
			continue
		}
		n, err := a.store.Count(ctx, id)
		if err != nil {
			return err
		}
		if !req.dryRun {
			if n, err = a.store.ForgetSource(ctx, id); err != nil {
				return err
			}
		}
		total += n
		fmt.Fprintf(out, "%s: %s on every branch and its index state\n", id, humanize.Plural(n, "chunk"))
		if i := sourceIndex(a.cfg, id); i >= 0 {
			fmt.Fprintf(out, "  %s is still in sources[%d]: the next index run indexes it again\n", id, i)
		}
	}
	votes := 0
	if req.branch == "" {
		var err error
		if votes, err = forgetVotes(ctx, a, req.dryRun, func(c retrieval.ShownCitation) bool { return slices.Contains(ids, c.Source) }); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "%s %s of %s; %s citing them\n", verb, humanize.Plural(total, "chunk"), humanize.Plural(len(ids), "source"), humanize.Plural(votes, "vote"))
	return nil
}

// forgetVotes deletes (counts, with dryRun) the votes on answers that
// showed a citation cites accepts.
func forgetVotes(ctx context.Context, a *app, dryRun bool, cites func(retrieval.ShownCitation) bool) (int, error) {
	votes, err := a.store.OpenFeedback(ctx)
	if err != nil {
		return 0, err
	}
	return votes.DeleteCiting(ctx, cites, dryRun)
}

// lowerStates takes the deleted chunks, and their files, out of the counts
// of the SourceState of each branch they were on, so that "up to date, N
// chunks" stays true. The recorded commit is kept: the next run of an
// unchanged branch is skipped, and an incremental one reads only the diff,
// so the files stay forgotten until they change or a full run reads them.
func lowerStates(ctx context.Context, store *weaviate.Store, refs []weaviate.ChunkRef) error {
	type branch struct{ source, branch string }
	chunks := map[branch]int{}
	files := map[branch]map[string]bool{}
	for _, r := range refs {
		b := branch{r.Source, r.Branch}
		chunks[b]++
		if files[b] == nil {
			files[b] = map[string]bool{}
		}
		files[b][r.Path] = true
	}
	for b, n := range chunks {
		st, ok, err := store.State(ctx, b.source, b.branch)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		st.Chunks = max(0, st.Chunks-n)
		st.Files = max(0, st.Files-len(files[b]))
		if err := store.PutState(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

// storedSourceIDs maps a --source name to source ids: the configured
// source's, else those of the index (chunks or states) whose name part is
// name ("repo:NAME", "docs:NAME", ...), or name itself when it is a full
// id. A name that is neither is an error (noSuchSource).
func storedSourceIDs(ctx context.Context, a *app, name string) ([]string, error) {
	if s, ok := a.cfg.SourceNamed(name); ok {
		return []string{s.SourceID()}, nil
	}
	counts, err := a.store.SourceCounts(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, id := range slices.Sorted(maps.Keys(counts)) {
		if _, n, ok := strings.Cut(id, ":"); id == name || (ok && n == name) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, noSuchSource(a.cfg, counts, name)
	}
	return ids, nil
}

// noSuchSource is the error of a --source name that is neither configured
// nor among the source ids the index holds (stored, as SourceCounts
// returns them): it lists the
// configured names, and those only in the index, with the closest of them
// all as a "did you mean" when one is close or the only one containing name
// (suggest.Name).
func noSuchSource(cfg *config.Config, stored map[string]int, name string) error {
	var configured, indexOnly []string
	for _, s := range cfg.Sources {
		configured = append(configured, s.Name)
	}
	for _, id := range slices.Sorted(maps.Keys(stored)) {
		if sourceIndex(cfg, id) >= 0 {
			continue
		}
		if _, n, ok := strings.Cut(id, ":"); ok {
			id = n
		}
		indexOnly = append(indexOnly, id)
	}
	known := "configured: " + strings.Join(configured, ", ")
	if len(indexOnly) > 0 {
		known += "; in the index only: " + strings.Join(indexOnly, ", ")
	}
	msg := fmt.Sprintf("--source %q is neither configured nor in the index", name)
	if near, ok := suggest.Name(name, append(configured, indexOnly...)); ok {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	return fmt.Errorf("%s (%s)", msg, known)
}

// sourceIndex is the index in cfg.Sources of the source whose id is id, or -1.
func sourceIndex(cfg *config.Config, id string) int {
	return slices.IndexFunc(cfg.Sources, func(s config.Source) bool { return s.SourceID() == id })
}

// globMatches reports whether the --path glob g matches path or one of its
// folders (so "config/secrets", "config/secrets/" and "**/fixtures" take
// what is under them), as an exclude entry does in ingest.
func globMatches(g, path string) bool {
	g = strings.TrimSuffix(g, "/") // "billing/" names the folder, as "billing" does
	return ingest.GlobMatchesUnder(g, path)
}

// listedPages maps the --page values that are page ids to the paths of
// those pages, per source id, by listing the pages of each configured
// confluence source in scope (ids; nil means all) as an index run does: a
// Data Center page's link names its title, not its id. A source that cannot
// be listed (no credentials, unreachable) is named on stderr; its pages are
// then matched by the ids in their links and by path only.
func listedPages(ctx context.Context, a *app, ids []string, pages []string) map[string]map[string]bool {
	want := map[string]bool{}
	for _, p := range pages {
		if p != "" && strings.Trim(p, "0123456789") == "" {
			want[p] = true
		}
	}
	out := map[string]map[string]bool{}
	if len(want) == 0 {
		return out
	}
	for _, src := range a.cfg.Sources {
		if src.Kind != config.KindConfluence || (ids != nil && !slices.Contains(ids, src.SourceID())) {
			continue
		}
		set, err := pageSet(a.cfg, src, a.log)
		var refs []ingest.PageRef
		if err == nil {
			refs, err = set.Pages.ListPages(ctx)
		}
		if err != nil {
			fmt.Fprintf(a.stderr, "could not list the pages of %s (%v): --page matches the page ids in its links, and page paths\n", src.Name, err)
			continue
		}
		for _, r := range refs {
			if want[r.ID] {
				if out[src.SourceID()] == nil {
					out[src.SourceID()] = map[string]bool{}
				}
				out[src.SourceID()][r.Path] = true
			}
		}
	}
	return out
}

// pageIDInURL finds a Confluence page id in a page URL: Cloud's
// /spaces/KEY/pages/ID/Title and Data Center's viewpage.action?pageId=ID.
var pageIDInURL = regexp.MustCompile(`/pages/(\d+)(?:[/?#]|$)|[?&]pageId=(\d+)`)

// pageMatches reports whether the --page value p names the page of r: its
// page id (in its URL) or its path (SPACE/Title, or an export's file path).
func pageMatches(p string, r weaviate.ChunkRef) bool {
	if !strings.HasPrefix(r.Source, "confluence:") && !strings.HasPrefix(r.Source, "docs:") {
		return false
	}
	if r.Path == p {
		return true
	}
	for _, m := range pageIDInURL.FindAllStringSubmatch(r.URL, -1) {
		if m[1] == p || m[2] == p {
			return true
		}
	}
	return false
}

// printExcludes prints, for each configured source that lost chunks to
// --path globs, the exclude line that keeps those files out of later runs,
// or why there is none.
func printExcludes(cfg *config.Config, req forgetRequest, sources map[string]bool, out io.Writer) {
	if !req.exclude {
		fmt.Fprintln(out, "files still in their source come back when indexed again (ragbot forget -h); --exclude prints the config line that keeps them out")
		return
	}
	for _, id := range slices.Sorted(maps.Keys(sources)) {
		i := sourceIndex(cfg, id)
		if i < 0 {
			fmt.Fprintf(out, "%s is not configured: nothing brings its chunks back\n", id)
			continue
		}
		src := cfg.Sources[i]
		if src.Kind != config.KindGit && src.Kind != config.KindMarkdown {
			fmt.Fprintf(out, "sources[%d] (%s, kind %s) has no glob exclude; its files come back at its next index run\n", i, src.Name, src.Kind)
			continue
		}
		entries := slices.Clone(src.Exclude)
		for _, g := range req.paths {
			if src.Kind == config.KindMarkdown { // exclude is relative to the folder, chunk paths carry its prefix
				if pre := citationPrefix(src.Path); pre != "" {
					g = strings.TrimPrefix(g, pre+"/")
				}
			}
			if !slices.Contains(entries, g) {
				entries = append(entries, g)
			}
		}
		quoted := make([]string, len(entries))
		for j, e := range entries {
			quoted[j] = fmt.Sprintf("%q", e)
		}
		fmt.Fprintf(out, "add to %s: sources[%d].exclude: [%s]\n", src.Name, i, strings.Join(quoted, ", "))
	}
}
