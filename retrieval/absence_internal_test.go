package retrieval

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEverydayTerm is the word-list decision as the absence check makes
// it: the lists' everyday words, their inflections and prefixed forms, and
// the words of asking are everyday; names and jargon the lists lack are not.
func TestEverydayTerm(t *testing.T) {
	for term, want := range map[string]bool{
		"retry": true, "alerts": true, "receiver": true, "slack": true, "oracle": true,
		"the": true, "where": true, "implemented": true, "codebase": true, "config": true, "pls": true,
		"sharded": true, "snoozing": true, "shipped": true, "unsqueezed": true, "neighbours": true, "english": true,
		"rabbitmq": false, "mongodb": false, "ldap": false, "elasticsearch": false, "terraform": false,
		"kafka": false, "redis": false, "unicode": false, "retyr": false, "webhook": false,
		// Misspelt words of asking, as chat types them; acronyms and short
		// names an edit from a short one are still names.
		"wher": true, "whre": true, "teh": true, "hwo": true, "waht": true, "implmented": true, "doese": true,
		"aws": false, "eth": false, "saml": false, "whois": false, "jwt": false, "sqs": false, "hdfs": false,
	} {
		if got := everydayTerm(term); got != want {
			t.Errorf("everydayTerm(%q) = %v, want %v", term, got, want)
		}
	}
}

func TestNameWords(t *testing.T) {
	tests := []struct {
		q    string
		want []nameWord
	}{
		{"where do we send alerts to rabbitmq?", []nameWord{{"rabbitmq", "rabbitmq"}}},
		{"where do we send alerts to RabbitMQ?", nil}, // an identifier: missingName's
		{"how do I restrict the web UI to members of an LDAP group?", []nameWord{{"UI", "ui"}, {"LDAP", "ldap"}}},
		{"does the LDAP's bind retry?", []nameWord{{"LDAP", "ldap"}}},
		{"isn't the server's certificate checked?", nil},
		{"where are non-English names turned into ASCII?", []nameWord{{"ASCII", "ascii"}}},
		{"where are the add-ons of the mongodb-backed store", []nameWord{{"mongodb", "mongodb"}}},
		{"what does 503 mean in 2 GB", []nameWord{{"GB", "gb"}}},
	}
	for _, tt := range tests {
		got := nameWords(Analyze(tt.q).Plain)
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(nameWord{})); diff != "" {
			t.Errorf("nameWords(%q) (-want +got):\n%s", tt.q, diff)
		}
	}
}

// testVocabulary is a vocabulary of one source with these document
// frequencies.
func testVocabulary(df map[string]int) Vocabulary {
	v := NewSourceVocabulary("repo:am", "main", nil)
	v.Terms = df
	return Vocabulary{v}
}

func TestAbsence(t *testing.T) {
	v := testVocabulary(map[string]int{"retry": 12, "alert": 40, "alerts": 30, "receiver": 9, "same": 50,
		"webhook": 7, "retrying": 2, "notify": 20, "notifier": 1, "silence": 15})
	tests := []struct {
		q           string
		wantMissing []string
		wantTypos   []Typo
	}{
		{"where do we send alerts to rabbitmq?", []string{"rabbitmq"}, nil},
		{"where do we send alerts to Elasticsearch", []string{"Elasticsearch"}, nil},
		{"how do I configure a terraform receiver", []string{"terraform"}, nil},
		{"where is the retyr logic", nil, []Typo{{"retyr", "retry"}}},
		{"which webhok do alerts go to", nil, []Typo{{"webhok", "webhook"}}}, // webhook: not everyday, present
		{"where do the webhooks retry", nil, nil},                            // an inflection of a present term
		// "saml" is one edit from "same", but short words are meant as written.
		{"how do I set up saml for the web ui", []string{"saml", "ui"}, nil},
		// A proper noun of the word list is a name, not a typo.
		{"where do alerts go to kafka", []string{"kafka"}, nil},
		// The correction must be frequent: "notifier" is held by 1 chunk.
		{"where is the notifyer", []string{"notifyer"}, nil},
		// Everyday words never refuse, present or not.
		{"how does it come back after losing the boss?", nil, nil},
		{"where do we snooze an alert?", nil, nil},
	}
	for _, tt := range tests {
		missing, typos := absence(Analyze(tt.q).Plain, v)
		if diff := cmp.Diff(tt.wantMissing, missing); diff != "" {
			t.Errorf("%q: missing (-want +got):\n%s", tt.q, diff)
		}
		if diff := cmp.Diff(tt.wantTypos, typos); diff != "" {
			t.Errorf("%q: typos (-want +got):\n%s", tt.q, diff)
		}
	}
}

// TestCorrection checks each single edit of Damerau's (transposition,
// deletion, insertion, substitution) and the limits.
func TestCorrection(t *testing.T) {
	v := testVocabulary(map[string]int{"retry": 12, "silence": 15, "silences": 4, "inhibit": 6, "dispatch": 9, "cluster": 5,
		"clusters": 5, "grouping": 2, "routes": 8, "router": 8, "opened": 30, "pipeline": 20, "response": 40,
		"heartbeat": 6, "session": 9, "ssl": 10, "amount": 50, "account": 5, "replies": 30, "replaces": 3})
	for term, want := range map[string]string{
		"retyr":    "retry",    // transposition
		"silnce":   "silence",  // deletion
		"inhibbit": "inhibit",  // insertion
		"dispetch": "dispatch", // substitution
		"clustr":   "cluster",  // cluster and clusters: only cluster is one edit away
		"routez":   "routes",   // routes and router tie at 8: z is next to s, far from r
		"routwr":   "router",   // w is next to e; routes is two edits away
		// A slip of the fingers (a letter left out or typed twice, a
		// neighbouring key) before a more frequent word that is not one.
		"acount":   "account", // c left out; amount (c for m) is held by more chunks
		"replces":  "replaces",
		"replues":  "replies", // u is next to i
		"groupimg": "",        // grouping: held by 2 chunks, fewer than typoMinDF
		"etry":     "",        // shorter than typoMinLen
		"zetry":    "",        // the first letter must match
		"retr7":    "",        // not all letters
		"openid":   "",        // open + id: a compound name, not a typo of "opened"
		// A compound of two everyday words is corrected by a letter left
		// out or typed twice: pip + line, resp + one, hear + beat.
		"pipline":  "pipeline",
		"respone":  "response",
		"hearbeat": "heartbeat",
		"sesssion": "session", // not a compound: any edit
		"tls":      "",        // shorter than typoMinLen: "ssl" and "tls" are meant as written
	} {
		if got := correction(term, v); got != want {
			t.Errorf("correction(%q) = %q, want %q", term, got, want)
		}
	}
	var n int
	edits1("ab", func(string) { n++ })
	// 2 deletions, 1 transposition, 2 x 35 substitutions, 3 x 36 insertions.
	if n != 2+1+70+108 {
		t.Errorf("edits1(ab) made %d strings, want %d", n, 2+1+70+108)
	}
}

// TestNeighbourKeys checks the QWERTY neighbours, rows shifted as on a
// keyboard.
func TestNeighbourKeys(t *testing.T) {
	for _, tt := range []struct {
		a, b byte
		want bool
	}{
		{'q', 'w', true}, {'a', 'q', true}, {'a', 'w', true}, {'a', 'z', true}, {'s', 'z', true},
		{'b', 'n', true}, {'g', 'b', true}, {'h', 'b', true}, {'p', 'l', true}, {'o', 'l', true},
		{'b', 'm', false}, {'c', 'm', false}, {'q', 's', false}, {'a', 'x', false}, {'a', 'a', false}, {'a', '1', false},
	} {
		if got, back := neighbourKeys(tt.a, tt.b), neighbourKeys(tt.b, tt.a); got != tt.want || back != tt.want {
			t.Errorf("neighbourKeys(%c, %c) = %v, (%c, %c) = %v; want %v", tt.a, tt.b, got, tt.b, tt.a, back, tt.want)
		}
	}
}

func TestCorrected(t *testing.T) {
	got := corrected("Where is the Retyr logic? retyr-ing, retyred", []Typo{{"Retyr", "retry"}})
	if want := "Where is the retry logic? retry-ing, retyred"; got != want {
		t.Errorf("corrected = %q, want %q", got, want)
	}
}

func TestRestOf(t *testing.T) {
	for q, want := range map[string]string{
		"where do we send alerts to rabbitmq?":      "send alerts",
		"how do I configure a RabbitMQ's receiver?": "configure receiver",
		"rabbitmq?":                          "",
		"where is rabbitmq used?":            "",
		"where is the rabbitmq-based queue?": "queue",
		"NotificationBatcher.Drain - where's that implemented": "",
	} {
		missing := []string{"rabbitmq"}
		if strings.Contains(q, "Batcher") {
			missing = []string{"NotificationBatcher.Drain"}
		}
		if got := restOf(q, missing); got != want {
			t.Errorf("restOf(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestDecideAbsence: a missing name refuses even beside an exact match of
// another name; a question searched with corrections is "not sure" at best.
// TestAbsenceAsTyped checks the rules that keep answerable questions from
// "no coverage", each as typed and in lower case: a letter left out of a
// compound is a typo, and a word that is the stem of numbered identifier
// pieces (rsv of rsv1Bit) is present.
func TestAbsenceAsTyped(t *testing.T) {
	v := testVocabulary(map[string]int{"pipeline": 30, "response": 50, "rsv1": 4, "rsv2": 3, "rsv3": 3, "bit": 9,
		"opcode": 7, "frame": 20, "ssl": 12, "v1beta1": 2})
	tests := []struct {
		q           string
		wantMissing []string
		wantTypos   []Typo
	}{
		{"where does the pipline wrap the queued commands in MULTI/EXEC", nil, []Typo{{"pipline", "pipeline"}}},
		{"where does the client check the servers handshake respone", nil, []Typo{{"respone", "response"}}},
		{"Where does the Pipline wrap the queued commands?", nil, []Typo{{"Pipline", "pipeline"}}},
		{"where are the RSV bits and the opcode of an incoming frame validated?", nil, nil},
		{"where are the rsv bits and the opcode of an incoming frame validated?", nil, nil},
		// Not a stem of numbered pieces: "rs" is followed by "v1", and
		// "rsvp" is no piece's stem.
		{"where are rsvp bits validated", []string{"rsvp"}, nil},
		// A 3-letter word is meant as written: "tls" is no typo of "ssl".
		{"where is tls set up", []string{"tls"}, nil},
		{"where is TLS set up", []string{"TLS"}, nil},
	}
	for _, tt := range tests {
		missing, typos := absence(Analyze(tt.q).Plain, v)
		if diff := cmp.Diff(tt.wantMissing, missing); diff != "" {
			t.Errorf("%q: missing (-want +got):\n%s", tt.q, diff)
		}
		if diff := cmp.Diff(tt.wantTypos, typos); diff != "" {
			t.Errorf("%q: typos (-want +got):\n%s", tt.q, diff)
		}
	}
}

func TestDecideAbsence(t *testing.T) {
	th := DefaultThresholds()
	tests := []struct {
		name string
		ev   Evidence
		want Coverage
	}{
		{"missing beats lexical", Evidence{Lexical: true, Missing: "mongodb", AbsentNames: []string{"mongodb"}}, NoCoverage},
		{"typo, in band", Evidence{DidYouMean: "retry", Similarity: 0.9, TermCoverage: 0.9}, NotSure},
		{"typo, lexical", Evidence{DidYouMean: "retry", Lexical: true}, NotSure},
		{"typo, far from everything", Evidence{DidYouMean: "retry", Similarity: 0.01, TermCoverage: 0.01}, NoCoverage},
		{"no typo, in band", Evidence{Similarity: 0.9, TermCoverage: 0.9}, Covered},
		// A literal held with its values different: covered only when the
		// answer shows a hit holding it (the first, or one in the band).
		{"approximate literal, shown first", Evidence{Approximate: "failed to get log at index 1042",
			Top: []HitEvidence{{Similarity: 0.9, TermCoverage: 0.9, Approximate: true}}}, Covered},
		{"approximate literal, shown in band", Evidence{Approximate: "failed to get log at index 1042",
			Top: []HitEvidence{{Similarity: 0.9, TermCoverage: 0.9}, {Similarity: 0.5, TermCoverage: 0.5, Approximate: true}}}, Covered},
		{"approximate literal, top hit below the band not shown", Evidence{Approximate: "failed to get log at index 1042",
			Top: []HitEvidence{{Similarity: 0.9, TermCoverage: 0.9}, {Similarity: 0.1, TermCoverage: 0.1, Approximate: true}}}, NotSure},
		{"approximate literal, in no top hit", Evidence{Approximate: "failed to get log at index 1042",
			Top: []HitEvidence{{Similarity: 0.9, TermCoverage: 0.9}}}, NotSure},
		{"approximate literal, far from everything", Evidence{Approximate: "x y z", Similarity: 0.01, TermCoverage: 0.01}, NoCoverage},
	}
	for _, tt := range tests {
		if got := tt.ev.Decide(th); got != tt.want {
			t.Errorf("%s: Decide = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestSourceVocabulary(t *testing.T) {
	v := NewSourceVocabulary("repo:am", "main", []string{"ops"})
	v.Count("retry retry alert 12345678\nretry", 1)
	v.Count("alert silence", 1)
	if diff := cmp.Diff(map[string]int{"retry": 1, "alert": 2, "silence": 1}, v.Terms); diff != "" {
		t.Errorf("terms after two chunks (-want +got):\n%s", diff)
	}
	v.Count("alert silence", -1)
	if diff := cmp.Diff(map[string]int{"retry": 1, "alert": 1}, v.Terms); diff != "" {
		t.Errorf("terms after taking one away (-want +got):\n%s", diff)
	}
	if v.Chunks != 1 {
		t.Errorf("Chunks = %d, want 1", v.Chunks)
	}
	if !(Vocabulary{v}).Has("retries") || (Vocabulary{v}).Has("silence") {
		t.Error("Has: want retries (an inflection of retry) and not silence")
	}
	not := NewSourceVocabulary("repo:n", "", nil)
	not.Count("this is not it", 1)
	if (Vocabulary{not}).Has("notes") {
		t.Error(`Has("notes") with only the stopword "not" held: want false`)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	v.CommitSHA, v.IndexedAt = "abc", at
	if !v.Current(SourceState{Source: "repo:am", Branch: "main", CommitSHA: "abc", IndexedAt: at}) ||
		v.Current(SourceState{Source: "repo:am", Branch: "main", CommitSHA: "abd", IndexedAt: at}) {
		t.Error("Current: want the state of its commit and time only")
	}
	for _, tt := range []struct {
		q    Query
		want bool
	}{
		{Query{Groups: []string{"ops"}}, true},
		{Query{}, false}, // the ACL
		{Query{Groups: []string{"ops"}, Sources: []string{"repo:other"}}, false},
		{Query{Groups: []string{"ops"}, Branch: "release"}, false},
		{Query{Groups: []string{"ops"}, Branch: "main", Sources: []string{"repo:am"}}, true},
	} {
		if got := v.InScope(tt.q); got != tt.want {
			t.Errorf("InScope(%+v) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

// TestOneEdit: OneEdit agrees with edits1 on misspellings of the asking
// words and on names near them.
func TestOneEdit(t *testing.T) {
	words := []string{"wher", "whre", "teh", "hwo", "waht", "implmented", "doese", "aws", "eth", "saml", "whois", "jwt",
		"th", "hte", "whree", "wheer", "wwhere", "tehre", "thta", "a", "wiht", "wth", "whith", "where", "the"}
	for _, x := range words {
		for w := range askingWords {
			edit := false
			edits1(x, func(c string) { edit = edit || c == w })
			if got, want := OneEdit(x, w), edit && x != w; got != want {
				t.Errorf("OneEdit(%q, %q) = %v, edits1 says %v", x, w, got, want)
			}
		}
	}
}

// BenchmarkNameWords is the word-list part of the absence check on one
// question of 11 plain words, run before every search:
// go test ./retrieval -run XXX -bench NameWords -benchmem.
func BenchmarkNameWords(b *testing.B) {
	plain := strings.Fields("where do we publish to rabbitmq kafka leaderboard snooze wher implmented")
	for b.Loop() {
		nameWords(plain)
	}
}
