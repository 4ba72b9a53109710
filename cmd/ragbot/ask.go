package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ragbot/ragbot/bot/terminal"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/internal/embedders"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

const askAbout = `ragbot ask answers a question with the top cited snippets from the indexed
sources: path:start-end, symbol, commit, author and when it was indexed, then
the snippet. An answer is one of three outcomes (--json: coverage):
  covered      the top snippets (up to retrieval.top_k);
  not sure     nothing clearly answers: the 10 closest matches, labelled as
               such, the first 3 with their code, with a hint to ask by name;
  no coverage  the question names something no indexed chunk contains (a
               word that is no everyday English, an identifier, file,
               message or endpoint; --json: missing), with the closest
               matches for the rest of the question when it asks about
               more (closest_for), or is far from everything indexed.
A word one letter from a frequent term of the sources is read as a typo:
"did you mean retry?" (did_you_mean), answered not sure for the question
with it. --explain says why. Git snippets are
checked against the branch head: one whose file changed since it was indexed
carries a warning, and shows the symbol's current lines when it still exists.

Examples:
  ragbot ask --config ragbot.yaml "where is the hybrid query built?"
  ragbot ask --config ragbot.yaml --json "Store.Upsert"
  ragbot ask --config ragbot.yaml --branch release-1.2 "where is the retry for 503 handled?"
  ragbot ask --config ragbot.yaml --index "where are chunks written to Weaviate?"
  ragbot ask --config ragbot.yaml -- "--cluster.settle-timeout"   (-- before a question that starts with a dash)

Flags may also follow the question: ragbot ask "where is X?" --json.`

func runAsk(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newFlags("ask", askAbout, stderr)
	asJSON := fs.Bool("json", false, "print the answer as JSON")
	explain := fs.Bool("explain", false, "show each hit's score parts, the LLM rewrites searched (retrieval.rewrite), or why a question was refused (similarity, term coverage, missing name against the thresholds)")
	sources := fs.String("source", "", "search only these sources (comma-separated names); empty means all")
	branch := fs.String("branch", "", "answer about this tracked branch, e.g. release-1.2; empty means the main (first tracked) branch of the git sources in scope")
	index := fs.Bool("index", false, "first bring the index up to date (as ragbot index), then answer")
	groups := fs.String("groups", "", "answer as a member of these ACL groups (comma-separated, as in sources' acl); empty: only sources without an acl")
	words, err := parseInterspersed(fs, args)
	if err != nil {
		if strings.Contains(err.Error(), "flag provided but not defined") {
			return fmt.Errorf("%w (a question that starts with a dash goes after --: ragbot ask -- \"-x ...\")", err)
		}
		return err
	}
	question := strings.TrimSpace(strings.Join(words, " "))
	if question == "" {
		return fmt.Errorf("%w: ask needs a question, e.g. ragbot ask \"where is the retry for 503 handled?\"", errUsage)
	}
	cfg, err := loadConfig(cf.config)
	if err != nil {
		return err
	}
	ids, err := cfg.SourceIDsNamed(commaList(*sources)) // before Weaviate starts: a typo fails at once
	if err != nil {
		return fmt.Errorf("%w: --source %w", errUsage, err)
	}
	requests := weaviate.NewRequestCounter()
	cf.observe = requests.Observe
	// Answer from keywords while a semantic endpoint is down, unless this
	// ask indexes first: that needs the semantic embedder.
	cf.answering = !*index
	a, err := openAppConfig(ctx, cfg, *cf, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	if *index {
		if err := indexAll(ctx, a, nil, false, stderr); err != nil {
			return err
		}
	}
	asker, branches := a.pipeline(ctx)
	embedders.Guard(asker, a.cfg.Embedder, a.log, a.lexicalOnly, a.semanticDown)
	if *branch != "" {
		if err := branches.Check(*branch, ids); err != nil {
			return fmt.Errorf("%w: --%v", errUsage, err)
		}
	}
	gs := commaList(*groups)
	for _, g := range gs {
		if !slices.ContainsFunc(a.cfg.Sources, func(s config.Source) bool { return slices.Contains(s.ACL, g) }) {
			return fmt.Errorf("%w: --groups %q is in no source's acl", errUsage, g)
		}
	}
	req := retrieval.Request{Question: question, Sources: ids, Branch: *branch, Groups: gs}
	// An empty scope is "not indexed yet", not "no coverage": a new user
	// who skipped `ragbot index` should be told to run it.
	indexed, err := a.anyInScope(ctx, ids)
	if err != nil {
		return fmt.Errorf("search is unavailable: %w", err)
	}
	var ans retrieval.Answer
	requests.Take() // count the question's requests only
	if !indexed {
		ans = retrieval.Answer{Question: question, Coverage: retrieval.NotIndexed, Confidence: retrieval.NotIndexed.Confidence(),
			Warnings: []string{notIndexed(a.cfg, *sources, cf.config)}}
	} else if ans, err = asker.Ask(ctx, req); err != nil {
		return fmt.Errorf("search is unavailable: %w", err)
	}
	if ans.Snippets == nil {
		ans.Snippets = []retrieval.Snippet{}
	}
	if ans.Warnings == nil {
		ans.Warnings = []string{}
	}
	if *asJSON {
		if *explain && indexed {
			ev := ans.Evidence
			ans.Explain = &ev
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ans)
	}
	if !indexed {
		fmt.Fprintln(stdout, ans.Warnings[0])
		return nil
	}
	terminal.Render(stdout, ans, asker.TopK, time.Now(), *explain)
	if *explain {
		terminal.ExplainRewrite(stdout, ans.Rewrite)
		fmt.Fprintln(stdout, terminal.WhyRefused(ans.Coverage, ans.Evidence, asker.Thresholds))
		fmt.Fprintln(stdout, "Weaviate requests for this question:", weaviate.FormatRequests(requests.Take()))
	}
	return nil
}

// anyInScope reports whether the sources ids hold any indexed chunk (the
// configured sources when ids is empty: chunks of a source taken out of
// the config are not searched, see retrieval.OnlySources).
func (a *app) anyInScope(ctx context.Context, ids []string) (bool, error) {
	if len(ids) == 0 {
		ids = a.cfg.SourceIDs()
	}
	return a.store.HasChunks(ctx, ids)
}

// notIndexed says that the sources in scope (the --source names, else all
// configured ones) hold no chunks yet, and how to index them.
func notIndexed(cfg *config.Config, sources, configPath string) string {
	names := commaList(sources)
	if len(names) == 0 {
		for _, s := range cfg.Sources {
			names = append(names, s.Name)
		}
	}
	return fmt.Sprintf("Not indexed yet: %s. Run `ragbot index --config %s` first.", strings.Join(names, ", "), configPath)
}
