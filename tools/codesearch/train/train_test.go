package train

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ragbot/ragbot/retrieval/embed/codesearch"
)

// tinyPairs are pairs mined from small real files: each topic has its own
// words on the query side and other words on the code side, so the model
// can only rank them by learning which go together.
func tinyPairs(t *testing.T) []Pair {
	t.Helper()
	topics := []struct{ doc, verb, noun, code string }{
		{"deletes the user account", "remove", "member", "db.Exec(\"DELETE FROM members WHERE id = ?\", id)"},
		{"sends an email notification", "deliver", "message", "smtp.SendMail(host, auth, from, to, body)"},
		{"checks the password credentials", "verify", "secret", "bcrypt.CompareHashAndPassword(hash, secret)"},
		{"compresses the payload with gzip", "shrink", "bytes", "w := gzip.NewWriter(buf); w.Write(data)"},
		{"parses the yaml configuration file", "load", "settings", "yaml.Unmarshal(raw, &settings)"},
		{"retries the request after a backoff", "repeat", "attempt", "time.Sleep(delay); delay *= 2"},
		{"renders the html template", "draw", "page", "tmpl.Execute(w, page)"},
		{"closes the database connection pool", "shutdown", "conns", "for _, c := range conns { c.Close() }"},
	}
	var src bytes.Buffer
	src.WriteString("package tiny\n\n")
	for i := range 64 {
		tp := topics[i%len(topics)]
		fmt.Fprintf(&src, "// F%d %s number %d.\nfunc F%d() {\n\t%s\n\t// %s %s\n\treturn\n}\n\n",
			i, tp.doc, i/len(topics), i, tp.code, tp.verb, tp.noun)
	}
	pairs := MineFile("tiny/tiny.go", src.Bytes())
	if len(pairs) != 64 {
		t.Fatalf("mined %d pairs from the tiny corpus, want 64", len(pairs))
	}
	return pairs
}

var tinyParams = Params{Dim: 16, Buckets: 512, MinCount: 1, MaxWords: 1000, Epochs: 30, Batch: 16, LR: 0.02, Scale: 10, Seed: 7}

func TestFitDeterministic(t *testing.T) {
	pairs := tinyPairs(t)
	var files [2][]byte
	for i := range files {
		m, err := Fit(context.Background(), pairs, tinyParams, map[string]string{"test": "tiny"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := m.Write(&b); err != nil {
			t.Fatal(err)
		}
		files[i] = b.Bytes()
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("two trainings on the same pairs with the same seed gave different model files")
	}
	other := tinyParams
	other.Seed = 8
	m, err := Fit(context.Background(), pairs, other, map[string]string{"test": "tiny"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	m.Write(&b)
	if bytes.Equal(b.Bytes(), files[0]) {
		t.Error("another seed gave the same model file")
	}
}

func TestFitLearns(t *testing.T) {
	pairs := tinyPairs(t)
	var losses []float64
	m, err := Fit(context.Background(), pairs, tinyParams, nil, func(_ int, l float64) { losses = append(losses, l) })
	if err != nil {
		t.Fatal(err)
	}
	if len(losses) != tinyParams.Epochs || losses[len(losses)-1] >= losses[0]/2 {
		t.Errorf("epoch losses %.3f: want %d epochs and the last below half the first", losses, tinyParams.Epochs)
	}
	// A query in the doc's words, none of which is on the code side
	// (gzip.NewWriter, "shrink bytes"), must rank that topic's code first
	// among one code per topic: the model linked them.
	codes := pairs[:8]
	q := m.Encode("where does it compress a payload")
	best, bestSim := -1, -2.0
	for i, p := range codes {
		if s := dot32(q, m.Encode(p.Code)); s > bestSim {
			best, bestSim = i, s
		}
	}
	if best != 3 {
		t.Errorf("\"compress a payload\" ranked %s first, want %s", codes[best].Symbol, codes[3].Symbol)
	}
	untrained, err := Fit(context.Background(), pairs, Params{Dim: 16, Buckets: 512, MinCount: 1, Epochs: 1, Batch: 16, LR: 1e-9, Seed: 7}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := MRR(pairs, 64, m.Encode)
	base, _ := MRR(pairs, 64, untrained.Encode)
	if got < 0.5 || got < base+0.2 {
		t.Errorf("MRR on the training pairs %.3f (untrained %.3f), want at least 0.5 and 0.2 above", got, base)
	}
}

// TestFitLoadRoundTrip: a trained model written and loaded back by the
// product's loader embeds alike and writes the same bytes.
func TestFitLoadRoundTrip(t *testing.T) {
	pairs := tinyPairs(t)
	m, err := Fit(context.Background(), pairs, tinyParams, map[string]int{"n": 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	m2, hash, err := codesearch.Load(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(hash) != 64 || m2.Dim != 16 || m2.Words != m.Words || string(m2.Train) != `{"n":1}` {
		t.Errorf("loaded dim %d words %d (want %d) train %s hash %q", m2.Dim, m2.Words, m.Words, m2.Train, hash)
	}
	for _, p := range pairs[:8] {
		a, c := m.Encode(p.Code), m2.Encode(p.Code)
		if !equal32(a, c) {
			t.Fatalf("%s: the loaded model embeds differently", p.Symbol)
		}
	}
	var b2 bytes.Buffer
	m2.Write(&b2)
	if !bytes.Equal(b.Bytes(), b2.Bytes()) {
		t.Error("writing the loaded model gave other bytes")
	}
	for _, bad := range [][]byte{nil, []byte("RBCSNBOW1\n\x05\x00\x00\x00{}"), b.Bytes()[:b.Len()-1]} {
		if _, _, err := codesearch.Load(bad); !errors.Is(err, codesearch.ErrFormat) {
			t.Errorf("Load(%d bytes) = %v, want ErrFormat", len(bad), err)
		}
	}
}

func equal32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
