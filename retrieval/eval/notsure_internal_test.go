package eval

import (
	"testing"

	"github.com/ragbot/ragbot/retrieval"
)

// TestNotSureFound counts, of the answerable questions answered "not
// sure", those whose wanted chunk is among the matches shown with code
// and among all the matches listed; other questions are not counted.
func TestNotSureFound(t *testing.T) {
	q := func(id string, answerable bool) Question {
		qq := Question{ID: id}
		if answerable {
			qq.Expect = []Expect{{Path: "a.go", StartLine: 1, EndLine: 2}}
		}
		return qq
	}
	outs := []Outcome{
		{Question: q("code", true), NotSure: true},
		{Question: q("listed", true), NotSure: true},
		{Question: q("missed", true), NotSure: true},
		{Question: q("answered", true)},
		{Question: q("unanswerable", false), NotSure: true},
	}
	ranks := map[string]int{"code": retrieval.NotSureMatches, "listed": retrieval.NotSureListed, "missed": 0, "answered": 1}
	got := notSureFound(outs, ranks)
	if want := (NotSureFound{Answerable: 3, WithCode: 1, Listed: 2}); got == nil || *got != want {
		t.Errorf("notSureFound = %+v, want %+v", got, want)
	}
	if got := notSureFound(outs[3:], ranks); got != nil {
		t.Errorf("notSureFound with no answerable question not sure = %+v, want nil", got)
	}
}
