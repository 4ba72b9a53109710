package retrieval

import (
	"fmt"
	"testing"
)

func TestQualifiedUsage(t *testing.T) {
	for _, tt := range []struct{ question, want string }{
		{"who calls Policy.Do?", "Policy.Do"},
		{"who calls (*Policy).Do", "Policy.Do"},
		{"callers of (Policy).Do", "Policy.Do"},
		{"who calls retry.Do", "retry.Do"},
		{"where is nats.Header.Set called", "nats.Header.Set"},
		{"who calls github.Client.Repos.Get", "Client.Repos.Get"}, // the last three parts
		{"who calls policy.do", "policy.do"},
		{"who calls Do", ""},                         // not qualified: name match
		{"who calls UserRepository::find", ""},       // not Go
		{"who calls UserRepository#findByEmail", ""}, // not Go
		{"where is Policy.Do defined?", ""},          // not a usage question
	} {
		if got := qualifiedUsage(tt.question); got != tt.want {
			t.Errorf("qualifiedUsage(%q) = %q, want %q", tt.question, got, tt.want)
		}
	}
}

func TestCallMatcher(t *testing.T) {
	def := func(pkg string) Hit { return Hit{Chunk: Chunk{Package: pkg}} }
	for _, tt := range []struct {
		name  string
		qual  string
		defs  []Hit
		cands []Hit // only their Calls matter: they decide exact case
		call  string
		want  bool
	}{
		{"method in its package", "Client.Do", []Hit{def("retryablehttp")}, nil, "retryablehttp.Client.Do@10", true},
		{"same Type.Method, other package", "Client.Do", []Hit{def("retryablehttp")}, nil, "http.Client.Do@10", false},
		{"no definition: any package", "Client.Do", nil, nil, "http.Client.Do@10", true},
		{"package named", "http.Client.Do", []Hit{def("retryablehttp")}, nil, "http.Client.Do@3", true},
		{"package function", "retry.Do", nil, nil, "retry.Do@3", true},
		{"package function is not a method", "retry.Do", nil, nil, "retry.Policy.Do@3", false},
		{"other method", "Policy.Do", nil, nil, "retry.Policy.Close@3", false},
		{"lower case typed", "policy.do", nil, nil, "retry.Policy.Do@3", true},
		{"a definition's test package", "Policy.Do", []Hit{def("retry_test")}, nil, "retry.Policy.Do@3", true},
		{"exact case present elsewhere", "policy.Do", nil, []Hit{{Chunk: Chunk{Calls: []string{"retry.policy.Do@1"}}}}, "retry.Policy.Do@3", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newCallMatcher(tt.qual, tt.defs, tt.cands)
			if got := m.match(tt.call); got != tt.want {
				t.Errorf("%q matches %q: %v, want %v", tt.qual, tt.call, got, tt.want)
			}
		})
	}
}

// TestPreciseUsageSCIP answers "who calls Store.close" over one Python
// chunk as ingest/scipcalls leaves it: the calls SCIP resolved to
// Store.close, the ".close(" it gave no symbol by name (said in ByName),
// not Conn.close; and the name match when SCIP did not run.
func TestPreciseUsageSCIP(t *testing.T) {
	const src = `def shutdown(store: Store, conn: Conn, thing):
    store.close()
    conn.close()
    thing.close()
    # thing.close() in a comment
    Store().close()`
	def := Hit{ID: "def", Chunk: Chunk{Source: "repo:shop", Kind: KindCode, Path: "shop/store.py", Symbol: "Store.close",
		SymbolKind: "method", Language: "python", Content: "def close(self):\n    return 1", StartLine: 2, EndLine: 3}}
	user := func(types string, calls ...string) Hit {
		return Hit{ID: "user", Chunk: Chunk{Source: "repo:shop", Kind: KindCode, Path: "shop/store.py", Symbol: "shutdown",
			SymbolKind: "function", Language: "python", Content: src, StartLine: 11, EndLine: 16, Types: types, Calls: calls}}
	}
	for _, tt := range []struct {
		name       string
		user       Hit
		wantLines  []int
		wantByName []string
		wantOK     bool
	}{
		{"resolved, and by name where SCIP gave no symbol",
			user(SCIPPython, "Conn.close@13", "Store.close@12", "?.close@14", "?.close@15", "Store.close@16"),
			[]int{12, 14, 16}, []string{"repo:shop shop/store.py (scip-python gave these calls no symbol: receiver of unknown type)"}, true},
		{"all resolved",
			user(SCIPPython, "Store.close@12", "Conn.close@13", "Store.close@16"),
			[]int{12, 16}, nil, true},
		{"indexer missing: by name, said",
			user(TypesUnavailable + "scip-python not installed in /x: run scripts/install-scip.sh"),
			[]int{12, 13, 14, 16}, []string{"repo:shop shop/store.py (scip-python not installed in /x: run scripts/install-scip.sh)"}, true},
		{"scip off: the usual name match", user(""), nil, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ans, ok := preciseUsage("who calls Store.close", "Store.close", "Store.close", []Hit{def}, []Hit{tt.user}, []Hit{tt.user})
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			var lines []int
			for _, s := range ans.Snippets[1:] {
				lines = append(lines, s.StartLine)
				if s.EndLine != s.StartLine {
					t.Errorf("site %s:%d-%d, want one line cited", s.Path, s.StartLine, s.EndLine)
				}
			}
			if fmt.Sprint(lines) != fmt.Sprint(tt.wantLines) {
				t.Errorf("site lines = %v, want %v", lines, tt.wantLines)
			}
			if fmt.Sprint(ans.Usage.ByName) != fmt.Sprint(tt.wantByName) {
				t.Errorf("by name = %q, want %q", ans.Usage.ByName, tt.wantByName)
			}
		})
	}
}

// TestPreciseUsageOtherLanguage: a Python method's callers are Python
// code; a JavaScript chunk with the same ".close(" (its indexer missing,
// so it would be matched by name) is no site of it.
func TestPreciseUsageOtherLanguage(t *testing.T) {
	def := Hit{ID: "def", Chunk: Chunk{Source: "repo:shop", Kind: KindCode, Path: "shop/store.py", Symbol: "Store.close",
		SymbolKind: "method", Language: "python", Content: "def close(self):\n    return 1", StartLine: 2, EndLine: 3}}
	py := Hit{ID: "py", Chunk: Chunk{Source: "repo:shop", Kind: KindCode, Path: "shop/app.py", Symbol: "shutdown", SymbolKind: "function",
		Language: "python", Content: "def shutdown(store: Store):\n    store.close()", StartLine: 1, EndLine: 2, Types: SCIPPython, Calls: []string{"Store.close@2"}}}
	js := Hit{ID: "js", Chunk: Chunk{Source: "repo:web", Kind: KindCode, Path: "web/pool.js", Symbol: "drain", SymbolKind: "function",
		Language: "javascript", Content: "function drain(pool) {\n  pool.close();\n}", StartLine: 1, EndLine: 3,
		Types: TypesUnavailable + "scip-typescript not installed in /x: run scripts/install-scip.sh"}}
	ans, ok := preciseUsage("who calls Store.close", "Store.close", "Store.close", []Hit{def}, []Hit{py}, []Hit{py, js})
	if !ok {
		t.Fatal("not answered precisely")
	}
	var got []string
	for _, s := range ans.Snippets[1:] {
		got = append(got, fmt.Sprintf("%s:%d", s.Path, s.StartLine))
	}
	if fmt.Sprint(got) != "[shop/app.py:2]" || len(ans.Usage.ByName) != 0 {
		t.Errorf("sites %v, by name %q; want only shop/app.py:2, nothing by name", got, ans.Usage.ByName)
	}
}
