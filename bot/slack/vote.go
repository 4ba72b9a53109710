package slack

import (
	"encoding/json"
	"fmt"

	"github.com/ragbot/ragbot/retrieval"
)

// voteValue is what a vote button carries: the question searched and the
// citations shown, so that the click alone is a complete feedback record.
type voteValue struct {
	Q string                    `json:"q"`
	C []retrieval.ShownCitation `json:"c"`
}

// encodeVote packs the question and the shown citations into a button value
// of at most maxButtonValue bytes: when they do not fit, symbols are dropped
// first, then the question is shortened, then the last citations go.
func encodeVote(question string, snips []retrieval.Snippet) string {
	v := voteValue{Q: question, C: retrieval.Shown(snips)}
	enc := func() string { b, _ := json.Marshal(v); return string(b) }
	if out := enc(); len(out) <= maxButtonValue {
		return out
	}
	for i := range v.C {
		v.C[i].Symbol = ""
	}
	if out := enc(); len(out) <= maxButtonValue {
		return out
	}
	v.Q = cutBytes(v.Q, 300)
	for {
		out := enc()
		if len(out) <= maxButtonValue || len(v.C) == 0 {
			return out
		}
		v.C = v.C[:len(v.C)-1]
	}
}

func decodeVote(value string) (voteValue, error) {
	var v voteValue
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		return v, fmt.Errorf("vote button value: %w", err)
	}
	if v.Q == "" {
		return v, fmt.Errorf("vote button value: no question")
	}
	return v, nil
}
