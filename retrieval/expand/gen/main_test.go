package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A GloVe file in the wink-embeddings layout: words in frequency order,
// each vector followed by its l2 norm and index; "the" and "x1" are not
// words it keeps (stopword-short, digits).
const gloveJSON = `{"precision":8,"l2NormIndex":3,"wordIndex":4,"size":5,"dimensions":3,
"words":["the","leader","chief","boss","x1","banana"],
"vectors":{"the":[1,1,1,1.7,0],"leader":[1,0.1,0,1,1],"chief":[0.9,0.2,0,0.9,2],
"boss":[1,0.3,0.1,1,3],"x1":[1,0,0,1,4],"banana":[0,0,1,1,5]},"unkVector":[0,0,0,0,-1]}`

// writeWordNet writes a WordNet 3.0 database in miniature: index lines
// list synset offsets (byte offsets into data.*), most frequent sense first.
func writeWordNet(t *testing.T, dir string) {
	t.Helper()
	var data strings.Builder
	var offs []string
	for _, synset := range []string{"02 boss 0 chief 0 000 | a leader", "02 boss 0 foreman 1 000 | one who oversees", "02 boss 0 stud 0 000 | a raised ornament"} {
		off := fmt.Sprintf("%08d", data.Len())
		offs = append(offs, off)
		data.WriteString(off + " 18 n " + synset + "  \n")
	}
	files := map[string]string{
		"data.noun": data.String(),
		"index.noun": "  1 licence header line\n" +
			"boss n 3 1 @ 3 1 " + strings.Join(offs, " ") + "  \n" +
			"chief n 1 1 @ 1 1 " + offs[0] + "  \n",
		"data.verb": "", "index.verb": "", "data.adj": "", "index.adj": "", "data.adv": "", "index.adv": "",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func gunzip(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBuildIsDeterministic builds both files twice from the same inputs and
// checks the bytes are equal and the content is what the inputs say.
func TestBuildIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "glove.json")
	if err := os.WriteFile(in, []byte(gloveJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	writeWordNet(t, dir)
	var runs [2][2][]byte
	for i := range runs {
		g, w := filepath.Join(dir, "g.gz"), filepath.Join(dir, "w.gz")
		if err := gloveNeighbours(in, g); err != nil {
			t.Fatal(err)
		}
		if err := wordnetSynonyms(dir, w); err != nil {
			t.Fatal(err)
		}
		for j, p := range []string{g, w} {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			runs[i][j] = b
		}
		if i == 0 {
			// boss is nearest chief, then leader; banana is far from all.
			glove := gunzip(t, g)
			if !strings.HasPrefix(strings.Split(glove, "\n")[1], "boss chief:") {
				t.Errorf("glove neighbours:\n%s\nwant boss's nearest to be chief", glove)
			}
			if strings.Contains(glove, "x1") {
				t.Errorf("glove neighbours:\n%s\nwant only words of letters, no x1", glove)
			}
			// Two senses of boss are read (chief, foreman), not the third (stud).
			want := "boss chief foreman\nchief boss\n"
			if diff := cmp.Diff(want, gunzip(t, w)); diff != "" {
				t.Errorf("wordnet synonyms (-want +got):\n%s", diff)
			}
		}
	}
	if !bytes.Equal(runs[0][0], runs[1][0]) || !bytes.Equal(runs[0][1], runs[1][1]) {
		t.Error("two builds from the same inputs differ")
	}
}
