package bot

import (
	"strings"

	"github.com/ragbot/ragbot/retrieval"
)

// Follow-up limits, in content terms (retrieval.QueryTerms). "and for the v2
// endpoint?" has 2, "where is the retry for 503 errors decided?" has 4: a
// question with fewer than followUpMaxOwn terms leans on its thread, a longer
// one stands alone. followUpMaxAdded keeps the thread from drowning the
// question (BM25 weighs every added term).
const (
	followUpMaxOwn   = 4
	followUpMaxAdded = 8
)

// FollowUp returns the text to search for a question asked inside a thread,
// given the thread's earlier messages, root first. A short question is read
// as a follow-up: the content terms of the root message (the thread's topic)
// and of the latest earlier message are appended, up to followUpMaxAdded and
// skipping terms the question has. A question of followUpMaxOwn terms or
// more, or one without earlier messages, is returned unchanged.
//
// This is deliberately simple and visible: the answer shows what was
// searched, so a reader can see why a follow-up found what it found. The
// bot also passes the thread in retrieval.Request.Thread: an Answerer with
// an LLM query rewriter (retrieval.rewrite) searches the model's standalone
// question instead, and this text when the model fails or is late.
func FollowUp(question string, earlier []string) string {
	own := retrieval.QueryTerms(question)
	if len(own) >= followUpMaxOwn || len(earlier) == 0 {
		return question
	}
	have := map[string]bool{}
	for _, t := range own {
		have[t] = true
	}
	from := []string{earlier[0]}
	if len(earlier) > 1 {
		from = append(from, earlier[len(earlier)-1])
	}
	var added []string
	for _, msg := range from {
		for _, t := range retrieval.QueryTerms(msg) {
			if len(added) == followUpMaxAdded {
				break
			}
			if !have[t] {
				have[t] = true
				added = append(added, t)
			}
		}
	}
	if len(added) == 0 {
		return question
	}
	return strings.TrimSpace(question) + " " + strings.Join(added, " ")
}
