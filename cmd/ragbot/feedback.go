package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
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
	var cf commonFlags
	fs := newFlags("feedback export", feedbackAbout, stderr)
	cf.register(fs)
	out := fs.String("o", "", "write the questions to this `file`; empty means stdout")
	down := fs.String("down", "", "also write answers voted down to this `file`, with expect [] to fill in; empty skips them")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	a, err := openApp(ctx, cf, stderr)
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
	ex := exportFeedback(all, a.cfg)
	if err := writeQuestions(*out, stdout, ex.up); err != nil {
		return err
	}
	if *down != "" {
		if err := writeQuestions(*down, nil, ex.down); err != nil {
			return err
		}
	}
	downNote := fmt.Sprintf("%d voted down (skipped; -down FILE writes them)", len(ex.down))
	if *down != "" {
		downNote = fmt.Sprintf("%d voted down written to %s", len(ex.down), *down)
	}
	fmt.Fprintf(stderr, "%d votes on %d answers: %d questions exported, %s, %d skipped (tied or source not configured)\n",
		len(all), ex.answers, len(ex.up), downNote, ex.skipped)
	return nil
}

// feedbackExport is the outcome of exportFeedback.
type feedbackExport struct {
	up, down []eval.Question
	answers  int // answers voted on
	skipped  int // tied, no citations, or source not configured
}

// exportFeedback turns votes (oldest first) into eval questions, as
// feedbackAbout describes. Questions keep the order of their answer's first
// vote; the same question answered twice with 👍 becomes one question with
// both answers' citations.
func exportFeedback(votes []retrieval.Feedback, cfg *config.Config) feedbackExport {
	type answer struct {
		latest    retrieval.Feedback
		up, down  int
		firstSeen int
	}
	byAnswer := map[string]*answer{}
	var order []string
	for i, v := range votes {
		key := v.Channel + "|" + v.MessageTS
		a, ok := byAnswer[key]
		if !ok {
			a = &answer{firstSeen: i}
			byAnswer[key] = a
			order = append(order, key)
		}
		a.latest = v
		if v.Vote == retrieval.VoteUp {
			a.up++
		} else {
			a.down++
		}
	}
	names := map[string]string{}
	for _, s := range cfg.Sources {
		names[s.SourceID()] = s.Name
	}
	ex := feedbackExport{answers: len(order)}
	index := map[string]int{} // question id -> position in ex.up
	for _, key := range order {
		a := byAnswer[key]
		if a.up == a.down || len(a.latest.Shown) == 0 {
			ex.skipped++
			continue
		}
		corpus, ok := names[a.latest.Shown[0].Source]
		if !ok {
			ex.skipped++
			continue
		}
		q := eval.Question{ID: feedbackID(corpus, a.latest.Question), Corpus: corpus, Kind: "feedback",
			Question: a.latest.Question, Expect: []eval.Expect{}}
		if a.down > a.up {
			ex.down = append(ex.down, q)
			continue
		}
		for _, c := range a.latest.Shown {
			if c.Source == a.latest.Shown[0].Source {
				q.Expect = append(q.Expect, eval.Expect{Path: c.Path, Symbol: c.Symbol, StartLine: c.StartLine, EndLine: c.EndLine})
			}
		}
		if i, dup := index[q.ID]; dup {
			ex.up[i].Expect = mergeExpect(ex.up[i].Expect, q.Expect)
			continue
		}
		index[q.ID] = len(ex.up)
		ex.up = append(ex.up, q)
	}
	return ex
}

func feedbackID(corpus, question string) string {
	sum := sha256.Sum256([]byte(corpus + "|" + question))
	return "FB-" + hex.EncodeToString(sum[:4])
}

func mergeExpect(have, more []eval.Expect) []eval.Expect {
	seen := map[eval.Expect]bool{}
	for _, e := range have {
		seen[e] = true
	}
	for _, e := range more {
		if !seen[e] {
			seen[e] = true
			have = append(have, e)
		}
	}
	return have
}

// writeQuestions writes qs as JSONL to path, or to w when path is "".
func writeQuestions(path string, w io.Writer, qs []eval.Question) (err error) {
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}()
		w = f
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, q := range qs {
		if err := enc.Encode(q); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return nil
}
