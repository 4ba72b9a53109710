package retrieval

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAnalyze(t *testing.T) {
	tests := []struct {
		q    string
		want Analysis
	}{
		{"where is SetNotifiesStage.Exec defined?", Analysis{Identifiers: []string{"SetNotifiesStage.Exec"}, Plain: []string{"where", "is", "defined"}, Words: 3}},
		{"aggrGroup.flush - where's that implemented", Analysis{Identifiers: []string{"aggrGroup.flush"}, Plain: []string{"where's", "that", "implemented"}, Words: 4}},
		{`config load error "group_interval cannot be zero" - where is that raised`,
			Analysis{Literals: []string{"group_interval cannot be zero"}, Plain: []string{"config", "load", "error", "where", "is", "that", "raised"}, Words: 8}},
		{"what does --cluster.settle-timeout actually control?",
			Analysis{Literals: []string{"cluster.settle-timeout"}, Plain: []string{"what", "does", "actually", "control"}, Words: 4}},
		{"difference between --enable-feature=classic-mode and utf8-strict-mode?",
			Analysis{Literals: []string{"enable-feature", "classic-mode"}, Plain: []string{"difference", "between", "and", "utf8-strict-mode"}, Words: 4}},
		{"cli/silence_import.go — how does the bulk import work", Analysis{Paths: []string{"cli/silence_import.go"}, Plain: []string{"how", "does", "the", "bulk", "import", "work"}, Words: 7}},
		{"does amtool honor XDG_CONFIG_DIRS?", Analysis{Identifiers: []string{"XDG_CONFIG_DIRS"}, Literals: []string{"XDG_CONFIG_DIRS"}, Plain: []string{"does", "amtool", "honor"}, Words: 3}},
		{"what does the expand parameter of GET /v1/charges do", Analysis{Endpoint: "GET /v1/charges", Plain: []string{"what", "does", "the", "expand", "parameter", "of", "do"}, Words: 8}},
		{"how do I cancel an order", Analysis{Plain: []string{"how", "do", "I", "cancel", "an", "order"}, Words: 6}},
		// An ellipsis splits a quoted message into the parts the asker kept.
		{`fails with "'require_tls' is true (default) but ... does not advertise the STARTTLS extension"`,
			Analysis{Literals: []string{"'require_tls' is true (default) but", "does not advertise the STARTTLS extension"}, Plain: []string{"fails", "with"}, Words: 2}},
		// Plain words, whatever their case, each once; not an endpoint's HTTP method.
		{"how do I set up SAML sign-on for the UI? Jira too", Analysis{
			Plain: []string{"how", "do", "I", "set", "up", "SAML", "sign-on", "for", "the", "UI", "Jira", "too"}, Words: 12}},
		{"GET /v1/orders via the REST api", Analysis{Plain: []string{"via", "the", "REST", "api"}, Endpoint: "GET /v1/orders", Words: 5}},
		// Apostrophes quote nothing; single quotes outside words do.
		{"where does it warn me that I'm making a request without checking the server's certificate?", Analysis{Plain: []string{"where", "does", "it", "warn", "me", "that", "I'm", "making", "a", "request", "without", "checking", "the", "server's", "certificate"}, Words: 15}},
		{"what sets 'retry_after' on a 429?", Analysis{Literals: []string{"retry_after"}, Plain: []string{"what", "sets", "on", "a", "429"}, Words: 5}},
		// A hyphenated word is no camelCase identifier.
		{"where are non-English host names turned into ASCII?", Analysis{Plain: []string{"where", "are", "non-English", "host", "names", "turned", "into", "ASCII"}, Words: 8}},
		// Go's names for a method as panics and pprof print them: the
		// receiver unwrapped, a frame's import path and call dropped.
		{"where is weaviate.(*Store).Upsert", Analysis{Identifiers: []string{"weaviate.Store.Upsert"}, Plain: []string{"where", "is"}, Words: 2}},
		{"(*Store).Upsert", Analysis{Identifiers: []string{"Store.Upsert"}}},
		{"github.com/org/repo/retrieval/weaviate.(*Store).Upsert(0xc000123, {0x1, 0x2})", Analysis{Identifiers: []string{"weaviate.Store.Upsert"}, Plain: []string{"0x1", "0x2"}, Trace: true, Words: 2}},
		{"where is retrieval/weaviate/store.go:230", Analysis{Paths: []string{"retrieval/weaviate/store.go"}, Lines: []int{230}, Plain: []string{"where", "is"}, Words: 2}},
		{"store.go:230:7: undefined: x", Analysis{Paths: []string{"store.go"}, Lines: []int{230}, Plain: []string{"undefined", "x"}, Words: 2}},
		{"store.Upsert(...) panics", Analysis{Identifiers: []string{"store.Upsert"}, Plain: []string{"panics"}, Words: 1}},
		// Pasted traces: absolute places, a Python frame, a module cache's
		// versioned folder and a Go frame with its import path are a trace.
		{"panic at /home/ci/shop/orders/service.go:47 +0x3a", Analysis{Paths: []string{"/home/ci/shop/orders/service.go"}, Lines: []int{47}, Trace: true, CrashPath: "/home/ci/shop/orders/service.go", CrashLine: 47, Plain: []string{"panic", "at", "+0x3a"}, Words: 3}},
		{`File "/srv/app/notify/email.py", line 12, in render`, Analysis{Paths: []string{"/srv/app/notify/email.py"}, Lines: []int{12}, Trace: true, CrashPath: "/srv/app/notify/email.py", CrashLine: 12, Plain: []string{"in", "render"}, Words: 2}},
		{`file "/srv/app/notify/email.py", line 12, in render`, Analysis{Paths: []string{"/srv/app/notify/email.py"}, Lines: []int{12}, Trace: true, CrashPath: "/srv/app/notify/email.py", CrashLine: 12, Plain: []string{"in", "render"}, Words: 2}},
		{`file "notify/email.py" at line 12`, Analysis{Literals: []string{"notify/email.py"}, Plain: []string{"file", "at", "line", "12"}, Words: 4}},
		{"github.com/hashicorp/raft@v1.7.1/raft.go:1234", Analysis{Paths: []string{"github.com/hashicorp/raft@v1.7.1/raft.go"}, Lines: []int{1234}, Trace: true, CrashPath: "github.com/hashicorp/raft@v1.7.1/raft.go", CrashLine: 1234}},
		{"github.com/acme/shop/orders.(*Service).Create(0xc000132000)", Analysis{Identifiers: []string{"orders.Service.Create"}, Trace: true}},
		// The innermost frame: a Go trace's first place, a Python traceback's last.
		{"/src/a/x.go:3 +0x1\n/src/a/y.go:9 +0x2", Analysis{Paths: []string{"/src/a/x.go", "/src/a/y.go"}, Lines: []int{3, 9}, Trace: true, CrashPath: "/src/a/x.go", CrashLine: 3, Plain: []string{"+0x1", "+0x2"}, Words: 2}},
		{`File "/src/a/x.py", line 3, in f` + "\n" + `File "/src/a/y.py", line 9, in g`, Analysis{Paths: []string{"/src/a/x.py", "/src/a/y.py"}, Lines: []int{3, 9}, Trace: true, CrashPath: "/src/a/y.py", CrashLine: 9, Plain: []string{"in", "f", "g"}, Words: 4}},
		{"java.lang.IllegalStateException: no order\n\tat com.acme.orders.Service.create(Service.java:47)\n\tat java.base/java.lang.Thread.run(Thread.java:833)",
			Analysis{Identifiers: []string{"java.lang.IllegalStateException", "com.acme.orders.Service.create", "java.lang.Thread.run"},
				Paths: []string{"Service.java", "Thread.java"}, Lines: []int{47, 833}, Trace: true, CrashPath: "Service.java", CrashLine: 47,
				Plain: []string{"no", "order", "at"}, Words: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.q, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Analyze(tc.q)); diff != "" {
				t.Errorf("Analyze (-want +got):\n%s", diff)
			}
		})
	}
}

// A place named as path:line ranks the chunk holding that line first
// among the file's chunks.
func TestRerankLine(t *testing.T) {
	at := func(id string, start, end int, score float64) Hit {
		h := hit(id, "retrieval/weaviate/store.go", id, "func "+id+"()", score)
		h.Chunk.StartLine, h.Chunk.EndLine = start, end
		return h
	}
	for q, want := range map[string]string{
		"where is retrieval/weaviate/store.go:230": "Upsert",
		"retrieval/weaviate/store.go:12:3":         "Open",
		"where is retrieval/weaviate/store.go":     "Search", // no line: the hybrid order stands
	} {
		qq := newQuestion(q)
		got := rerank(qq, termWeights{}, []Hit{at("Open", 1, 60, 0.3), at("Search", 100, 180, 0.9), at("Upsert", 204, 265, 0.2)})
		if got[0].ID != want {
			t.Errorf("%q: first %s, want %s", q, got[0].ID, want)
		}
	}
}

func TestPathTails(t *testing.T) {
	got := PathTails([]string{"cli/import.go", "/src/shop/orders/service.go", "x@v1.2.0/y/z.py", "service.go"})
	want := []string{"cli/import.go", "/src/shop/orders/service.go", "x@v1.2.0/y/z.py", "service.go",
		"src/shop/orders/service.go", "shop/orders/service.go", "orders/service.go", "y/z.py", "z.py"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PathTails (-want +got):\n%s", diff)
	}
	for p, want := range map[string]bool{"orders/service.go": true, "service.go": true, "rders/service.go": false, "shop/orders/service.go/x": false} {
		if got := pathMatch([]string{"/home/ci/shop/orders/service.go"}, p); got != want {
			t.Errorf("pathMatch(trace path, %q) = %v, want %v", p, got, want)
		}
	}
	// A repository path never matches a longer chunk path through its head.
	if pathMatch([]string{"orders/service.go"}, "service.go") {
		t.Error(`pathMatch("orders/service.go", "service.go") = true, want false`)
	}
}

// A pasted trace's innermost frame ranks first among its frames: a Go
// trace's first place, a Python traceback's last.
func TestRerankCrash(t *testing.T) {
	at := func(id, path string, start, end int, score float64) Hit {
		h := hit(id, path, id, "func "+id+"()", score)
		h.Chunk.StartLine, h.Chunk.EndLine = start, end
		return h
	}
	hits := func() []Hit {
		return []Hit{at("caller", "svc/handler.go", 10, 40, 0.9), at("crash", "svc/store.go", 200, 260, 0.2), at("other", "svc/store.go", 1, 60, 0.5),
			at("jcaller", "src/main/java/svc/Handler.java", 10, 40, 0.9), at("jcrash", "src/main/java/svc/Store.java", 200, 260, 0.2)}
	}
	for q, want := range map[string]string{
		"goroutine 7 [running]:\n/home/ci/svc/store.go:230 +0x1f\n/home/ci/svc/handler.go:22 +0x2a":                                       "crash",
		"Traceback (most recent call last):\n  File \"/srv/svc/store.go\", line 230, in a\n  File \"/srv/svc/handler.go\", line 22, in b": "caller",
		"java.lang.NullPointerException\n\tat svc.Store.put(Store.java:230)\n\tat svc.Handler.handle(Handler.java:22)":                    "jcrash",
	} {
		if got := rerank(newQuestion(q), termWeights{}, hits()); got[0].ID != want {
			t.Errorf("%.40q…: first %s, want %s", q, got[0].ID, want)
		}
	}
}

func TestUnqualified(t *testing.T) {
	for id, want := range map[string]string{
		"weaviate.Store.Upsert": "Store.Upsert",
		"http.NewRequest":       "NewRequest",
		"Silences.Set":          "Silences.Set",
		"os.getenv":             "os.getenv",
		"aggrGroup.flush":       "aggrGroup.flush",
		"process.env.NODE_ENV":  "NODE_ENV",
		"Upsert":                "Upsert",
	} {
		if got := Unqualified(id); got != want {
			t.Errorf("Unqualified(%q) = %q, want %q", id, got, want)
		}
	}
}

// hit makes a candidate with a fused hybrid score; .md files are docs, the
// rest code.
func hit(id, path, symbol, content string, score float64) Hit {
	kind := KindCode
	if strings.HasSuffix(path, ".md") {
		kind = KindDoc
	}
	return Hit{ID: id, Score: score, Chunk: Chunk{Kind: kind, Path: path, Symbol: symbol, Content: content, ContentHash: HashContent(path + symbol + content)}}
}

func TestRerank(t *testing.T) {
	tests := []struct {
		name    string
		query   string
		hits    []Hit
		wantTop string // ID of the expected first hit
	}{
		{
			// The BM25 trap: the same method name in two packages, the question names the type.
			// Silences.Set: 0.40 + symbol_exact 1.0 = 1.40 beats mesh Set (0.90, no bonus).
			name:  "definition of the named type's method",
			query: "looking for Silences.Set in the silence package",
			hits: []Hit{
				hit("mesh", "silence/mesh.go", "Mesh.Set", "func (m *Mesh) Set(...)", 0.90),
				hit("def", "silence/silence.go", "Silences.Set", "func (s *Silences) Set(sil *pb.Silence) error", 0.40),
			},
			wantTop: "def",
		},
		{
			// A method named without its type: symbol_member +0.6 lifts 0.3 to 0.9 over 0.8.
			name:  "member name",
			query: "where is findByEmail",
			hits: []Hit{
				hit("caller", "web/login.go", "LoginHandler", "u := repo.findByEmail(email)", 0.80),
				hit("def", "repo/user.go", "UserRepository.findByEmail", "func (r *UserRepository) findByEmail()", 0.30),
			},
			wantTop: "def",
		},
		{
			// Tests mention the error too: test -0.3 takes the test from 1.0+0.8 to 1.5,
			// below the raiser's 0.75+0.8 = 1.55.
			name:  "error string, tests penalised",
			query: `where is "group_interval cannot be zero" raised`,
			hits: []Hit{
				hit("test", "config/config_test.go", "TestGroupIntervalZero", `wantErr: "group_interval cannot be zero"`, 1.0),
				hit("def", "config/config.go", "Route.UnmarshalYAML", `return errors.New("group_interval cannot be zero")`, 0.75),
			},
			wantTop: "def",
		},
		{
			// Asking about tests turns the penalty off: 1.0+0.8 beats 0.75+0.8.
			name:  "tests asked for",
			query: `which test checks "group_interval cannot be zero"`,
			hits: []Hit{
				hit("test", "config/config_test.go", "TestGroupIntervalZero", `wantErr: "group_interval cannot be zero"`, 1.0),
				hit("def", "config/config.go", "Route.UnmarshalYAML", `return errors.New("group_interval cannot be zero")`, 0.75),
			},
			wantTop: "test",
		},
		{
			// A named file: path +0.6 lifts 0.2 to 0.8 over the changelog's 0.9-0.3 = 0.6.
			name:  "named file over changelog",
			query: "cli/silence_import.go — how does the bulk import work",
			hits: []Hit{
				hit("log", "CHANGELOG.md", "0.20.0", "silence import now runs in parallel", 0.90),
				hit("def", "cli/silence_import.go", "silenceImportCmd.bulkImport", "func (c *silenceImportCmd) bulkImport()", 0.20),
			},
			wantTop: "def",
		},
		{
			// An endpoint named exactly: symbol_exact +1.0.
			name:  "endpoint",
			query: "POST /v1/orders/{id}/cancel",
			hits: []Hit{
				hit("get", "api.yaml", "GET /v1/orders/{id}", "GET /v1/orders/{id}", 0.95),
				hit("post", "api.yaml", "POST /v1/orders/{id}/cancel", "POST /v1/orders/{id}/cancel", 0.50),
			},
			wantTop: "post",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := rerankUniform(tc.query, tc.hits)
			if got[0].ID != tc.wantTop {
				for _, h := range got {
					t.Logf("%s %.2f %s", h.ID, h.Score, h.Debug)
				}
				t.Errorf("top %s, want %s", got[0].ID, tc.wantTop)
			}
		})
	}
}

// TestRerankFeatures covers the features added on top of the name matches.
// The term coverage feature (wCoverage times the share of the question's
// content terms in the chunk) is part of every score, so each case says
// what it is for each hit.
func TestRerankFeatures(t *testing.T) {
	tests := []struct {
		name    string
		query   string
		hits    []Hit
		wantTop string
	}{
		{
			// Content terms: cluster, settle, timeout, control; both hits hold all
			// four (coverage +1.0 each) and the literal (+0.8 each). The code
			// declares the flag in a string: defined +0.2, so 0.40+0.8+0.2+1.0 =
			// 2.40 beats the docs' 0.50+0.8+1.0 = 2.30.
			name:  "flag declaration over a docs mention",
			query: "what does --cluster.settle-timeout control?",
			hits: []Hit{
				hit("docs", "docs/ha.md", "HA > Flags", "Set `--cluster.settle-timeout` to control how long peers wait.", 0.50),
				hit("def", "cmd/main.go", "run", `settle := kingpin.Flag("cluster.settle-timeout", "control wait").Duration()`, 0.40),
			},
			wantTop: "def",
		},
		{
			// Content terms: expire, old, silences. "bulk" repeats one of them
			// (coverage 1/3: 0.9+0.33 = 1.23); "gc" holds all three (1.0: 0.5+1.0 =
			// 1.50).
			name:  "coverage over repetition",
			query: "where do we expire old silences",
			hits: []Hit{
				hit("bulk", "silence/list.go", "list", "silences silences silences", 0.90),
				hit("gc", "silence/gc.go", "gc", "func gc() { expire old silences }", 0.50),
			},
			wantTop: "gc",
		},
		{
			// Both parts of a message with an ellipsis are found in the raiser
			// (literal +0.8, defined +0.2), one in the docs (literal +0.4).
			// Content terms (require, tls, requiretls, true, default, but, does,
			// not, advertise, starttls, extension; 11): the raiser has all
			// (+1.0), the docs lack "advertise", "starttls", "extension" (8/11 =
			// +0.73). Raiser 0.3+0.8+0.2+1.0 = 2.30, docs 0.9+0.4+0.73 = 2.03.
			name:  "message with an ellipsis",
			query: `"'require_tls' is true (default) but ... does not advertise the STARTTLS extension"`,
			hits: []Hit{
				hit("docs", "docs/email.md", "Email", "'require_tls' is true (default) but the server does not support it", 0.90),
				hit("def", "notify/email.go", "Email.Notify", `return fmt.Errorf("'require_tls' is true (default) but %q does not advertise the STARTTLS extension", host)`, 0.30),
			},
			wantTop: "def",
		},
		{
			// "documentation" asks for docs, it is not what they are about: the
			// only content term is "middlewares". The section about it covers
			// the question (0.5+1.0 = 1.5), the table of contents that says
			// "documentation" does not (0.6); were the word counted, the
			// table would cover half (0.6+0.5 = 1.1 against 0.5+0.5 = 1.0).
			name:  "asking for documentation",
			query: "is there documentation about middlewares?",
			hits: []Hit{
				hit("toc", "docs/index.md", "Reference Documentation", "Reference documentation: routing, hooks, plugins", 0.6),
				hit("section", "README.md", "Middlewares", "Middlewares wrap a handler: logging, recovery, timeouts", 0.5),
			},
			wantTop: "section",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := rerankUniform(tc.query, tc.hits)
			if got[0].ID != tc.wantTop {
				for _, h := range got {
					t.Logf("%s %.2f %s", h.ID, h.Score, h.Debug)
				}
				t.Errorf("top %s, want %s", got[0].ID, tc.wantTop)
			}
		})
	}
}

func TestLiteralDefined(t *testing.T) {
	tests := []struct {
		lit, content string
		want         bool
	}{
		{"cluster.settle-timeout", `kingpin.Flag("cluster.settle-timeout", "...")`, true},
		{"resolve_timeout", "ResolveTimeout model.Duration `yaml:\"resolve_timeout\" json:\"resolve_timeout\"`", true},
		{"SMTP_HOST", `self.host = os.environ.get('SMTP_HOST', "localhost")`, true},
		{"resolve_timeout", "// resolve_timeout is read at load time", false},
		{"x", `a := "\"" + x`, false}, // the escaped quote does not open a string
	}
	for _, tt := range tests {
		if got := literalDefined([]string{tt.lit}, tt.content); got != tt.want {
			t.Errorf("literalDefined(%q in %q) = %v, want %v", tt.lit, tt.content, got, tt.want)
		}
	}
}

func TestRerankDropsDuplicateContent(t *testing.T) {
	a := hit("main", "pkg/x.go", "X", "func X() {}", 0.9)
	b := a
	b.ID, b.Chunk.Path = "vendored", "vendor/pkg/x.go"
	got := rerankUniform("X", []Hit{a, b})
	if len(got) != 1 || got[0].ID != "main" {
		t.Errorf("got %d hits, first %s; want the first copy only", len(got), got[0].ID)
	}
}

// rerankUniform reranks hits for query with every content term weighing
// the same (idf 1), as if each were found in equally many chunks: the
// weights of a real collection come from Weaviate (weighTerms).
func rerankUniform(query string, hits []Hit) []Hit {
	q := newQuestion(query)
	var w termWeights
	for _, t := range q.content {
		if EnglishStopwords[t] || fillerWords[t] {
			continue
		}
		w.forms = append(w.forms, inflections(t))
		w.idf = append(w.idf, 1)
		w.sum++
	}
	return rerank(q, w, hits)
}

func TestIsVendoredPath(t *testing.T) {
	for p, want := range map[string]bool{
		"dist/axios.js":                  true,
		"dist/node/axios.cjs":            true,
		"web/node_modules/lodash/map.js": true,
		"vendor/github.com/x/y/z.go":     true,
		"lib/core/buildFullPath.js":      false,
		"distance/metric.go":             false,
		"docs/vendoring.md":              false,
	} {
		if got := isVendoredPath(p); got != want {
			t.Errorf("isVendoredPath(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestRerankVendored: a bundle in dist/ that repeats the source's function
// ranks under it, unless the question asks about the build or names the file.
func TestRerankVendored(t *testing.T) {
	src := Hit{ID: "src", Chunk: Chunk{Path: "lib/helpers/throttle.js", Symbol: "throttle", Kind: KindCode, Content: "function throttle(fn, freq) {}"}, Score: 0.5}
	bundle := Hit{ID: "dist", Chunk: Chunk{Path: "dist/axios.js", Symbol: "throttle", Kind: KindCode, Content: "function throttle(fn, freq) {}"}, Score: 0.6}
	for q, want := range map[string]string{
		"where are progress updates limited?":                    "src",
		"where are progress updates limited in the dist bundle?": "dist",
		"what does dist/axios.js do to limit progress updates?":  "dist",
	} {
		got := rerank(newQuestion(q), termWeights{}, []Hit{bundle, src})
		if got[0].ID != want {
			t.Errorf("%q: first %s, want %s", q, got[0].ID, want)
		}
	}
}

// TestTestsLast: a question that does not ask about tests, typed
// loosely or not, gets every non-test hit before the first test hit, each
// part in its order; one that asks about tests keeps the scored order.
func TestTestsLast(t *testing.T) {
	hits := func() []Hit {
		return []Hit{
			hit("TestBackoff", "retry_test.go", "TestBackoff", "func TestBackoff(t *testing.T) { d := backoffDelay(3) }", 0.9),
			hit("test_parse", "tests/test_parser.py", "test_parse", "def test_parse():\n    assert parse_header(b'x')", 0.8),
			hit("Other", "other.go", "Other", "func Other() {}", 0.7),
			hit("backoffDelay", "retry.go", "backoffDelay", "func backoffDelay(n int) time.Duration {}", 0.6),
			hit("mockStore", "internal/mocks/store.go", "mockStore", "type mockStore struct{}", 0.55),
			hit("parse_header", "parser.py", "parse_header", "def parse_header(b):", 0.5),
		}
	}
	ids := func(hs []Hit) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.ID)
		}
		return out
	}
	want := []string{"Other", "backoffDelay", "parse_header", "TestBackoff", "test_parse", "mockStore"}
	for _, q := range []string{"where is the retry delay computed", "WHERE IS THE RETRY DELAY COMPUTED?", "wher is teh retry delay"} {
		if diff := cmp.Diff(want, ids(rerank(newQuestion(q), termWeights{}, hits()))); diff != "" {
			t.Errorf("%q (-want +got):\n%s", q, diff)
		}
	}
	for _, q := range []string{"where is the retry delay tested", "Where is the retry delay TESTED", "mock of the store"} {
		if got := ids(rerank(newQuestion(q), termWeights{}, hits())); got[0] != "TestBackoff" {
			t.Errorf("%q asks about tests: %v, want the scored order, TestBackoff first", q, got)
		}
	}
	if got := ids(rerank(newQuestion("where is the retry delay computed"), termWeights{}, hits(), "test")); got[0] != "TestBackoff" {
		t.Errorf("without the test feature: %v, want the scored order", got)
	}
}
