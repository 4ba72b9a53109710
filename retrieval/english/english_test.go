package english

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
	"testing"
)

// TestEveryday is the word-list decision: lower-case entries are everyday
// words, in any case in the question; a word the list has only
// capitalised (a proper noun, an acronym) or not at all is not.
func TestEveryday(t *testing.T) {
	for w, want := range map[string]bool{
		// everyday: lower-case entries, whatever the case asked in
		"retry": true, "retries": true, "Retry": true, "alerting": true, "silenced": true,
		"receiver": true, "slack": true, "Slack": true, "login": true, "isn't": true, "isn’t": true,
		// both a proper noun and a common word: everyday
		"oracle": true, "Oracle": true, "python": true,
		// British spellings; capitalised words of SCOWL's size 35
		"neighbours": true, "initialise": true, "colour": true, "English": true, "english": true, "monday": true, "PR": true,
		// capitalised entries only: names
		"kafka": false, "Kafka": false, "redis": false, "linux": false, "unicode": false,
		// in no entry: product names and jargon
		"rabbitmq": false, "RabbitMQ": false, "mongodb": false, "ldap": false, "LDAP": false,
		"elasticsearch": false, "terraform": false, "webhook": false, "kubernetes": false,
		"retyr": false, "": false,
	} {
		if got := Everyday(w); got != want {
			t.Errorf("Everyday(%q) = %v, want %v", w, got, want)
		}
	}
	for w, want := range map[string]bool{"kafka": true, "Redis": true, "linux": true, "oracle": false, "retry": false, "rabbitmq": false} {
		if got := Proper(w); got != want {
			t.Errorf("Proper(%q) = %v, want %v", w, got, want)
		}
	}
	// 83,815 lower-case entries of american-english, 1,809 British-only
	// ones and 334 common capitalised words, some of which are also
	// lower-case entries.
	if n := Size(); n < 85_000 || n > 86_000 {
		t.Errorf("Size() = %d, want about 85,800", n)
	}
}

// TestListUnchanged checks that the embedded lists are the files that
// PROVENANCE.md records.
func TestListUnchanged(t *testing.T) {
	for _, f := range []struct {
		name string
		gz   []byte
		sum  string
	}{
		{"american-english.gz", listGz, "9f513f1ceadb6a01c5485b7dbdfd5118dc66cd70b59cae2851292112d4066a32"},
		{"british-only.gz", britishGz, "33123c36d2f3bb31984f273daf10719b8a460aacde249a9a52a1ed700926e974"},
		{"common-capitalised.gz", commonGz, "1ca13df670b91c1fbe0c4ecbedb3d1d2f2bdfa9e50d1e15609f84c49e65366df"},
	} {
		r, err := gzip.NewReader(bytes.NewReader(f.gz))
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != f.sum {
			t.Errorf("%s: content sha256 %s, want %s (PROVENANCE.md)", f.name, got, f.sum)
		}
	}
	if !strings.Contains(Copyright, "Kevin Atkinson") {
		t.Error("Copyright does not hold SCOWL's notice")
	}
}

func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		m := map[string]uint8{}
		if err := parse(m, listGz, proper); err != nil {
			b.Fatal(err)
		}
	}
}

// Size is how many everyday words the lists have.
func Size() int {
	n := 0
	for _, k := range words() {
		if k&everyday != 0 {
			n++
		}
	}
	return n
}
