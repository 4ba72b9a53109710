package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/ragbot/ragbot/retrieval"
)

// VoteExport is the outcome of FromVotes.
type VoteExport struct {
	Up      []Question // answers voted up, as questions expecting their citations
	Down    []Question // answers voted down, with expect [] for someone to fill in
	Answers int        // answers voted on
	Skipped int        // tied, no citations, or source not configured
}

// FromVotes turns votes (oldest first) into eval questions, as `ragbot
// feedback export` describes: votes count per answer (a user's latest once);
// an answer with more 👍 than 👎 becomes a question of kind "feedback"
// whose corpus is the configured name of the source of its top citation
// (sources maps names to source ids), and whose expect is the citations shown from that
// source; one with more 👎 goes to Down with expect []; ties and answers of
// a source not in names are skipped. Its id is "FB-" and 8 hex digits of a
// hash of corpus and question, stable across exports. Questions keep the
// order of their answer's first vote; the same question answered twice
// with 👍 becomes one question with both answers' citations.
func FromVotes(votes []retrieval.Feedback, sources map[string]string) VoteExport {
	names := map[string]string{} // source id -> configured name
	for name, id := range sources {
		names[id] = name
	}
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
	ex := VoteExport{Answers: len(order)}
	index := map[string]int{} // question id -> position in ex.Up
	for _, key := range order {
		a := byAnswer[key]
		if a.up == a.down || len(a.latest.Shown) == 0 {
			ex.Skipped++
			continue
		}
		corpus, ok := names[a.latest.Shown[0].Source]
		if !ok {
			ex.Skipped++
			continue
		}
		q := Question{ID: feedbackID(corpus, a.latest.Question), Corpus: corpus, Kind: "feedback",
			Question: a.latest.Question, Expect: []Expect{}}
		if a.down > a.up {
			ex.Down = append(ex.Down, q)
			continue
		}
		for _, c := range a.latest.Shown {
			if c.Source == a.latest.Shown[0].Source {
				q.Expect = append(q.Expect, Expect{Path: c.Path, Symbol: c.Symbol, StartLine: c.StartLine, EndLine: c.EndLine})
			}
		}
		if i, dup := index[q.ID]; dup {
			ex.Up[i].Expect = mergeExpect(ex.Up[i].Expect, q.Expect)
			continue
		}
		index[q.ID] = len(ex.Up)
		ex.Up = append(ex.Up, q)
	}
	return ex
}

// feedbackID is the id of a question from votes: "FB-" and 8 hex digits.
func feedbackID(corpus, question string) string {
	sum := sha256.Sum256([]byte(corpus + "|" + question))
	return "FB-" + hex.EncodeToString(sum[:4])
}

// mergeExpect appends to have the locations of more it lacks.
func mergeExpect(have, more []Expect) []Expect {
	for _, e := range more {
		if !slices.Contains(have, e) {
			have = append(have, e)
		}
	}
	return have
}

// Write writes qs as JSONL, one question a line, as Load reads them; HTML
// characters are not escaped. Its error is the writer's.
func Write(w io.Writer, qs []Question) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, q := range qs {
		if err := enc.Encode(q); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile writes qs as JSONL (Write) to the file path, created or truncated,
// or to w when path is "". Errors name path; a failed Close is returned too.
func WriteFile(path string, w io.Writer, qs []Question) (err error) {
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
	if err := Write(w, qs); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
