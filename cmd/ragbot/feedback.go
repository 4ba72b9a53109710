package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ragbot/ragbot/retrieval/eval"
)

const feedbackAbout = `ragbot feedback export writes the votes cast with the 👍/👎 buttons under
answers as eval questions (the JSONL that "ragbot eval -h" describes), for
"ragbot eval" to keep score on questions real users asked.

Votes are counted per answer (a user's latest vote counts once). An answer
with more 👍 than 👎 becomes a question: its corpus is the source of the top
citation, its expect the citations shown from that source, kind "feedback",
id "FB-" and 8 hex digits of a hash of corpus and question (stable across
exports). An answer with more 👎 is not an eval question as it is (nobody
said where the answer is; expect [] would claim the sources do not cover it),
so it is skipped, or written with expect [] to -down FILE for someone to fill
in. Ties and answers whose source is no longer configured are skipped. A
summary goes to stderr.

Examples:
  ragbot feedback export --config ragbot.yaml > feedback.jsonl
  ragbot feedback export --config ragbot.yaml -o feedback.jsonl -down triage.jsonl`

func runFeedback(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) > 0 && isHelp(args[0]):
		fmt.Fprintln(stdout, feedbackAbout+"\n\nRun \"ragbot feedback export -h\" for its flags.")
		return nil
	case len(args) == 0:
		return fmt.Errorf("%w: feedback needs a subcommand: ragbot feedback export [flags]", errUsage)
	case args[0] != "export":
		return unknownSubcommand("feedback", args[0], []string{"export"})
	}
	fs, cf := newFlags("feedback export", feedbackAbout, stderr)
	out := fs.String("o", "", "write the questions to this `file`; empty means stdout")
	down := fs.String("down", "", "also write answers voted down to this `file`, with expect [] to fill in; empty skips them")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	a, err := openApp(ctx, *cf, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	votes, err := a.store.OpenFeedback(ctx)
	if err != nil {
		return err
	}
	all, err := votes.List(ctx)
	if err != nil {
		return err
	}
	ex := eval.FromVotes(all, a.cfg.SourceIDsByName())
	if err := eval.WriteFile(*out, stdout, ex.Up); err != nil {
		return err
	}
	if *down != "" {
		if err := eval.WriteFile(*down, nil, ex.Down); err != nil {
			return err
		}
	}
	downNote := fmt.Sprintf("%d voted down (skipped; -down FILE writes them)", len(ex.Down))
	if *down != "" {
		downNote = fmt.Sprintf("%d voted down written to %s", len(ex.Down), *down)
	}
	fmt.Fprintf(stderr, "%d votes on %d answers: %d questions exported, %s, %d skipped (tied or source not configured)\n",
		len(all), ex.Answers, len(ex.Up), downNote, ex.Skipped)
	return nil
}
