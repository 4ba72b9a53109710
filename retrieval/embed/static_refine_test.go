package embed_test

import (
	"bytes"
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/wordvec"
)

// TestRefine: refining the same base on the same texts gives the same
// file, whose header says what it was made of; the team's words get
// vectors.
func TestRefine(t *testing.T) {
	base := tinyStatic(t).Model()
	texts := []string{strings.Repeat("the quorum of the raft cluster elects a leader node\n\n", 10)}
	const print = "texts-v1"
	var files [2][]byte
	for i := range files {
		r, err := embed.Refine(context.Background(), base, "basehash", texts, print)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = r.File
		if _, ok := r.Static.Model().ID("quorum"); !ok {
			t.Errorf("refined model lacks %q, seen 10 times in the texts", "quorum")
		}
		if r.Stats.NewWords == 0 {
			t.Errorf("Stats.NewWords = 0, want the texts' new words")
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("two refinements of the same base on the same texts gave different files")
	}
	_, meta, err := wordvec.Load(bytes.NewReader(files[0]))
	if err != nil {
		t.Fatal(err)
	}
	if !embed.RefinedFrom(meta, "basehash") || embed.RefinedFrom(meta, "otherhash") {
		t.Errorf("RefinedFrom(header %v): want true for the base's hash only", meta)
	}
	if !embed.RefineCurrent(meta, base, "basehash", print) {
		t.Errorf("RefineCurrent(header %v) = false for the same base and text, want true", meta)
	}
	if embed.RefineCurrent(meta, base, "basehash", "texts-v2") {
		t.Error("RefineCurrent = true for other text, want false")
	}
	stale := maps.Clone(meta)
	stale["refine"] = `{"Version":"0"}`
	if embed.RefineCurrent(stale, base, "basehash", print) {
		t.Error("RefineCurrent = true for another refinement version, want false")
	}
}
