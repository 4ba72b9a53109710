package forget

import (
	"context"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/humanize"
	"github.com/ragbot/ragbot/internal/suggest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// Request is what to forget: the flags of `ragbot forget` (its -h says
// what each takes). The command checks it first: Branch needs Source,
// Exclude needs Paths, every path is a valid glob, and one of Source,
// Paths, Pages and User is set.
type Request struct {
	Source  string   // --source: a configured source name, or one only in the index ("" none)
	Branch  string   // --branch: with Source, only this branch
	Paths   []string // --path globs (doublestar, anchored at the source's root)
	Pages   []string // --page: Confluence page ids or paths (SPACE/Title)
	User    string   // --user: a chat user id whose votes and remembered Teams thread questions go
	DryRun  bool     // print what would go, delete nothing
	Exclude bool     // print the sources[].exclude line that keeps Paths out
}

// Sources gives the pages of a configured source as an index run reads
// them; sources.Sources implements it for the loaded config.
type Sources interface {
	// Pages is the page set of a confluence or html source; an error when
	// it cannot be made (a missing token).
	Pages(src config.Source) (ingest.PageSet, error)
}

// Forgetter deletes chunks, index states and votes from the index of a
// config. Its methods print what they delete, by source and path.
type Forgetter struct {
	Store   *weaviate.Store
	Config  *config.Config
	Sources Sources
	Stderr  io.Writer // notices, e.g. a confluence source whose pages cannot be listed
}

// Forget carries out req and reports to out: a line per path (or source,
// or branch) deleted, a total line with the votes citing them, and with
// DryRun a last line saying nothing was deleted. A Source neither
// configured nor in the index is an error naming the closest names; other
// errors are the store's.
func (f *Forgetter) Forget(ctx context.Context, req Request, out io.Writer) error {
	verb := "forgot"
	if req.DryRun {
		verb = "would forget"
	}
	if req.Source != "" || len(req.Paths) > 0 || len(req.Pages) > 0 {
		if err := f.forgetChunks(ctx, req, verb, out); err != nil {
			return err
		}
	}
	if req.User != "" {
		votes, err := f.Store.OpenFeedback(ctx)
		if err != nil {
			return err
		}
		n, err := votes.DeleteUser(ctx, req.User, req.DryRun)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s %s of user %s (questions, channels, votes)\n", verb, humanize.Plural(n, "vote"), req.User)
		turns, err := f.Store.OpenTurns(ctx)
		if err != nil {
			return err
		}
		if n, err = turns.DeleteUser(ctx, req.User, req.DryRun); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s %s of user %s in Teams threads (questions, citations shown)\n", verb, humanize.Plural(n, "remembered question"), req.User)
	}
	if req.DryRun {
		fmt.Fprintln(out, "dry run: nothing was deleted")
	}
	return nil
}

// forgetChunks is Forget's part on chunks (and the votes citing them).
func (f *Forgetter) forgetChunks(ctx context.Context, req Request, verb string, out io.Writer) error {
	var ids []string // source ids in scope; nil means every source
	if req.Source != "" {
		var err error
		if ids, err = f.storedSourceIDs(ctx, req.Source); err != nil {
			return err
		}
	}
	if len(req.Paths) == 0 && len(req.Pages) == 0 {
		return f.forgetSources(ctx, ids, req, verb, out)
	}
	pagePaths := f.listedPages(ctx, ids, req.Pages)
	refs, err := f.Store.ChunkRefs(ctx, func(r weaviate.ChunkRef) bool {
		if (ids != nil && !slices.Contains(ids, r.Source)) || (req.Branch != "" && r.Branch != req.Branch) {
			return false
		}
		return slices.ContainsFunc(req.Paths, func(g string) bool { return globMatches(g, r.Path) }) ||
			slices.ContainsFunc(req.Pages, func(p string) bool { return pageMatches(p, r) }) ||
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
	if !req.DryRun && len(refs) > 0 {
		refIDs := make([]string, len(refs))
		for i, r := range refs {
			refIDs[i] = r.ID
		}
		if deleted, err = f.Store.DeleteChunks(ctx, refIDs); err != nil {
			return err
		}
		if err := lowerStates(ctx, f.Store, refs); err != nil {
			return err
		}
	}
	votes := 0
	if req.Branch == "" && len(keys) > 0 {
		if votes, err = f.forgetVotes(ctx, req.DryRun, func(c retrieval.ShownCitation) bool {
			return byPath[key{c.Source, c.Path}] != nil
		}); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "%s %s in %s of %s; %s citing them\n", verb, humanize.Plural(deleted, "chunk"), humanize.Plural(len(keys), "path"),
		humanize.Plural(len(sources), "source"), humanize.Plural(votes, "vote"))
	if len(req.Paths) > 0 && len(refs) > 0 {
		f.printExcludes(req, sources, out)
	}
	return nil
}

// forgetSources forgets whole sources (ids), or one branch of them.
func (f *Forgetter) forgetSources(ctx context.Context, ids []string, req Request, verb string, out io.Writer) error {
	total := 0
	for _, id := range ids {
		if req.Branch != "" {
			_, hasState, err := f.Store.State(ctx, id, req.Branch)
			if err != nil {
				return err
			}
			what := "" // the branch's index state is named only when there is one
			if hasState {
				what = " and the branch's index state"
			}
			var n int
			if req.DryRun { // the chunks DeleteBranch would delete; listing them reads every chunk, so only here
				var refs []weaviate.ChunkRef
				refs, err = f.Store.ChunkRefs(ctx, func(r weaviate.ChunkRef) bool { return r.Source == id && r.Branch == req.Branch })
				n = len(refs)
			} else {
				n, err = f.Store.DeleteBranch(ctx, id, req.Branch)
			}
			if err != nil {
				return err
			}
			total += n
			fmt.Fprintf(out, "%s@%s: %s%s\n", id, req.Branch, humanize.Plural(n, "chunk"), what)
			if i := sourceIndex(f.Config, id); i >= 0 && slices.Contains(f.Config.Sources[i].Branches, req.Branch) {
				fmt.Fprintf(out, "  %s is still in sources[%d].branches: the next index run indexes it again\n", req.Branch, i)
			}
			continue
		}
		n, err := f.Store.Count(ctx, id)
		if err != nil {
			return err
		}
		if !req.DryRun {
			if n, err = f.Store.ForgetSource(ctx, id); err != nil {
				return err
			}
		}
		total += n
		fmt.Fprintf(out, "%s: %s on every branch and its index state\n", id, humanize.Plural(n, "chunk"))
		if i := sourceIndex(f.Config, id); i >= 0 {
			fmt.Fprintf(out, "  %s is still in sources[%d]: the next index run indexes it again\n", id, i)
		}
	}
	votes := 0
	if req.Branch == "" {
		var err error
		if votes, err = f.forgetVotes(ctx, req.DryRun, func(c retrieval.ShownCitation) bool { return slices.Contains(ids, c.Source) }); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "%s %s of %s; %s citing them\n", verb, humanize.Plural(total, "chunk"), humanize.Plural(len(ids), "source"), humanize.Plural(votes, "vote"))
	return nil
}

// forgetVotes deletes (counts, with dryRun) the votes on answers that
// showed a citation cites accepts.
func (f *Forgetter) forgetVotes(ctx context.Context, dryRun bool, cites func(retrieval.ShownCitation) bool) (int, error) {
	votes, err := f.Store.OpenFeedback(ctx)
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
func (f *Forgetter) storedSourceIDs(ctx context.Context, name string) ([]string, error) {
	if s, ok := f.Config.SourceNamed(name); ok {
		return []string{s.SourceID()}, nil
	}
	counts, err := f.Store.SourceCounts(ctx)
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
		return nil, noSuchSource(f.Config, counts, name)
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
func (f *Forgetter) listedPages(ctx context.Context, ids []string, pages []string) map[string]map[string]bool {
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
	for _, src := range f.Config.Sources {
		if src.Kind != config.KindConfluence || (ids != nil && !slices.Contains(ids, src.SourceID())) {
			continue
		}
		set, err := f.Sources.Pages(src)
		var refs []ingest.PageRef
		if err == nil {
			refs, err = set.Pages.ListPages(ctx)
		}
		if err != nil {
			fmt.Fprintf(f.Stderr, "could not list the pages of %s (%v): --page matches the page ids in its links, and page paths\n", src.Name, err)
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
func (f *Forgetter) printExcludes(req Request, sources map[string]bool, out io.Writer) {
	if !req.Exclude {
		fmt.Fprintln(out, "files still in their source come back when indexed again (ragbot forget -h); --exclude prints the config line that keeps them out")
		return
	}
	for _, id := range slices.Sorted(maps.Keys(sources)) {
		i := sourceIndex(f.Config, id)
		if i < 0 {
			fmt.Fprintf(out, "%s is not configured: nothing brings its chunks back\n", id)
			continue
		}
		src := f.Config.Sources[i]
		if src.Kind != config.KindGit && src.Kind != config.KindMarkdown {
			fmt.Fprintf(out, "sources[%d] (%s, kind %s) has no glob exclude; its files come back at its next index run\n", i, src.Name, src.Kind)
			continue
		}
		entries := slices.Clone(src.Exclude)
		for _, g := range req.Paths {
			if src.Kind == config.KindMarkdown { // exclude is relative to the folder, chunk paths carry its prefix
				if pre := src.CitationPrefix(); pre != "" {
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
