package ingest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ragbot/ragbot/ingest/code"
	"github.com/ragbot/ragbot/retrieval"
)

// StaleRepos tells guardStale where each git source's repository is, by
// chunk source id ("repo:payments": Dir, LinkTemplate), and how the indexer
// chunks files (Code), so that it finds a symbol's current lines the way
// the next index run will.
type StaleRepos struct {
	Sources map[string]GitSource
	Code    code.Options
	// Redact, as the indexer's (Indexer.Redact), redacts the current lines
	// shown instead of a stale snippet's.
	Redact *Redactor
}

// guardStale checks each snippet of a git source in ans against the head of
// its branch in the local repository (the work tree's repository, or
// ragbot's clone as of its last fetch), so that nothing stale is shown
// without a warning. A snippet is fresh when its commit is the head or its
// file is the same blob at both. Otherwise the file changed after the
// chunk's commit and the index has not caught up: when the symbol is still
// in the file at the head, the snippet shows its current lines instead
// (lines, commit, link and author at the head), and Snippet.Stale says
// "changed since indexed ... not yet indexed"; when the symbol or the file
// is gone, the snippet keeps its text and Stale says so. A symbol whose
// lines only moved is left as it is: its citation at its own commit is
// exact and the code is the same at the head. A usage answer's site, one
// line, is checked by guardSite.
//
// A snippet that cannot be checked (repository unreadable, source not in
// repos) gets a Stale warning too; the errors are returned joined, for the
// log, and never stop the answer.
func guardStale(ctx context.Context, ans *retrieval.Answer, repos StaleRepos) error {
	type ref struct{ source, branch string }
	heads := map[ref]string{}
	headErr := map[ref]error{}
	var errs []error
	for i := range ans.Snippets {
		s := &ans.Snippets[i]
		// Not from a git source: TTLs are markStale's business. A markdown
		// folder's file cited at the HEAD of its work tree has a commit but
		// no branch; the folder is read from disk again on its next run.
		if s.CommitSHA == "" || s.Branch == "" {
			continue
		}
		src, ok := repos.Sources[s.Source]
		if !ok {
			s.Stale = "could not check whether this changed since indexed: the source is no longer configured"
			continue
		}
		repo := gitRepo{dir: src.Dir}
		k := ref{s.Source, s.Branch}
		if _, seen := heads[k]; !seen {
			heads[k], _, headErr[k] = repo.head(ctx, s.Branch)
		}
		head, err := heads[k], headErr[k]
		switch {
		case err != nil || head == s.CommitSHA:
		case ans.Usage != nil && i >= ans.Usage.Definitions:
			err = guardSite(ctx, s, repo, head)
		default:
			err = guardSnippet(ctx, s, repo, src, repos.Code, repos.Redact, head, ans.Question)
		}
		if err != nil {
			s.Stale = "could not check whether this changed since indexed"
			errs = append(errs, fmt.Errorf("ingest: stale check of %s@%s %s: %w", s.Source, s.Branch, s.Path, err))
		}
	}
	return errors.Join(errs...)
}

// guardSnippet handles a snippet whose commit is not the branch head. A
// snippet focused on what question matched (Snippet.ShownStart set, see
// retrieval.FocusSnippet) is compared, and its current lines are shown,
// focused the same way.
func guardSnippet(ctx context.Context, s *retrieval.Snippet, repo gitRepo, src GitSource, opt code.Options, red *Redactor, head, question string) error {
	at, now := s.CommitSHA+":"+s.Path, head+":"+s.Path
	blobs, err := repo.blobIDs(ctx, []string{at, now})
	if err != nil {
		return err
	}
	if blobs[at] != "" && blobs[at] == blobs[now] {
		return nil // the file is as it was at the chunk's commit
	}
	what := cmp.Or(s.Symbol, fmt.Sprintf("lines %d-%d", s.StartLine, s.EndLine))
	if blobs[now] == "" {
		s.Stale = fmt.Sprintf("changed since indexed at %s: %s is no longer on %s at %s (deleted or renamed); not yet reindexed",
			short(s.CommitSHA), s.Path, s.Branch, short(head))
		return nil
	}
	cur, ok, err := currentChunk(ctx, repo, s, blobs[now], opt, red)
	if err != nil {
		return err
	}
	if !ok {
		s.Stale = fmt.Sprintf("changed since indexed at %s: %s is no longer in %s at %s; not yet reindexed",
			short(s.CommitSHA), what, s.Path, short(head))
		return nil
	}
	snippet := retrieval.NewSnippet
	if s.ShownStart > 0 {
		terms := retrieval.NewFocusTerms(question)
		snippet = func(c retrieval.Chunk) retrieval.Snippet { return retrieval.FocusSnippet(c, terms) }
	}
	// At its old first line, so that a focused snippet's "lines X-Y not
	// shown" compares equal when the symbol only moved.
	moved := cur
	moved.StartLine, moved.EndLine = s.StartLine, s.StartLine+cur.EndLine-cur.StartLine
	if same := snippet(moved); same.Text == s.Text && same.MoreLines == s.MoreLines {
		return nil // the file changed elsewhere; this symbol reads the same
	}
	shown := snippet(cur)
	old := s.CommitSHA
	s.Text, s.MoreLines, s.ShownStart, s.ShownEnd = shown.Text, shown.MoreLines, shown.ShownStart, shown.ShownEnd
	s.StartLine, s.EndLine, s.CommitSHA = cur.StartLine, cur.EndLine, head
	s.URL = link(src.LinkTemplate, head, s.Path, cur.StartLine, cur.EndLine)
	if lines, err := repo.blame(ctx, head, s.Path); err == nil {
		if lc, ok := lines.span(cur.StartLine, cur.EndLine); ok {
			s.Author = lc.author
		}
	}
	s.Stale = fmt.Sprintf("changed since indexed at %s: showing the current lines at %s, not yet indexed", short(old), short(head))
	return nil
}

// guardSite handles a usage answer's site (one line, retrieval.Usage)
// whose commit is not the branch head. As a symbol whose lines only moved,
// a site whose line (as shown, trimmed) is still in the file at the head is
// left as it is: its citation at its own commit is exact. Otherwise Stale
// says the line is gone. A site is never replaced by its symbol's current
// chunk, which would cite a whole symbol for one line.
func guardSite(ctx context.Context, s *retrieval.Snippet, repo gitRepo, head string) error {
	at, now := s.CommitSHA+":"+s.Path, head+":"+s.Path
	blobs, err := repo.blobIDs(ctx, []string{at, now})
	if err != nil {
		return err
	}
	if blobs[at] != "" && blobs[at] == blobs[now] {
		return nil
	}
	if blobs[now] == "" {
		s.Stale = fmt.Sprintf("changed since indexed at %s: %s is no longer on %s at %s (deleted or renamed); not yet reindexed",
			short(s.CommitSHA), s.Path, s.Branch, short(head))
		return nil
	}
	data, err := repo.run(ctx, "cat-file", "blob", blobs[now])
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == s.Text {
			return nil
		}
	}
	s.Stale = fmt.Sprintf("changed since indexed at %s: line %d is no longer in %s at %s; not yet reindexed",
		short(s.CommitSHA), s.StartLine, s.Path, short(head))
	return nil
}

// currentChunk chunks the file's blob at the head as the indexer would and
// returns the chunk of the snippet's symbol, the one nearest its old lines
// when the symbol has several (windows of a long symbol, line windows).
func currentChunk(ctx context.Context, repo gitRepo, s *retrieval.Snippet, blob string, opt code.Options, red *Redactor) (retrieval.Chunk, bool, error) {
	data, err := repo.run(ctx, "cat-file", "blob", blob)
	if err != nil {
		return retrieval.Chunk{}, false, err
	}
	chunks, _, _, _, _ := chunkFile(fileInput{path: s.Path, data: data}, opt, red)
	best, found := retrieval.Chunk{}, false
	for _, c := range chunks {
		if c.Symbol != s.Symbol {
			continue
		}
		if !found || lineGap(c.StartLine, s.StartLine) < lineGap(best.StartLine, s.StartLine) {
			best, found = c, true
		}
	}
	return best, found, nil
}

// lineGap is the distance between two line numbers.
func lineGap(a, b int) int { return max(a, b) - min(a, b) }
