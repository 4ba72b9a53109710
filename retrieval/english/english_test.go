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
		// capitalised entries only: names
		"kafka": false, "Kafka": false, "redis": false, "linux": false,
		// in no entry: product names and jargon
		"rabbitmq": false, "RabbitMQ": false, "mongodb": false, "ldap": false, "LDAP": false,
		"elasticsearch": false, "terraform": false, "webhook": false, "kubernetes": false,
		"retyr": false, "": false,
	} {
		if got := Everyday(w); got != want {
			t.Errorf("Everyday(%q) = %v, want %v", w, got, want)
		}
	}
	if n := Size(); n < 80_000 || n > 90_000 {
		t.Errorf("Size() = %d, want the 83,815 lower-case entries of wamerican 2020.12.07-2", n)
	}
}

// TestListUnchanged checks that the embedded list is Debian's file as
// PROVENANCE.md records it.
func TestListUnchanged(t *testing.T) {
	r, err := gzip.NewReader(bytes.NewReader(listGz))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	const want = "9f513f1ceadb6a01c5485b7dbdfd5118dc66cd70b59cae2851292112d4066a32"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("american-english sha256 %s, want %s (PROVENANCE.md)", got, want)
	}
	if !strings.Contains(Copyright, "Kevin Atkinson") {
		t.Error("Copyright does not hold SCOWL's notice")
	}
}

func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		if _, err := parse(listGz); err != nil {
			b.Fatal(err)
		}
	}
}
