package code

import (
	"slices"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
)

// TestChunkRefs checks, per grammar, that a caller's chunk holds the names it
// calls and selects and the keys it reads, and not a name only its comment
// mentions.
func TestChunkRefs(t *testing.T) {
	tests := []struct {
		path, src, symbol string
		want              []string
		notWant           string // in a comment only
	}{{
		path: "svc/store.go", symbol: "open",
		src:  "package svc\n\nimport \"os\"\n\n// open wraps legacyOpen.\nfunc open() *Store {\n\tcfg := loadConfig(os.Getenv(\"RAGBOT_TOKEN\"))\n\treturn newStore(cfg.retryPolicy)\n}\n",
		want: []string{"newStore", "loadConfig", "Getenv", "os", "retryPolicy", "RAGBOT_TOKEN", "Store", "cfg"}, notWant: "legacyOpen",
	}, {
		path: "svc/store.py", symbol: "open_store",
		src:  "import os\n\n\ndef open_store():\n    # legacy_open is gone\n    token = os.environ[\"RAGBOT_TOKEN\"]\n    return new_store(token, policy=RetryPolicy.default())\n",
		want: []string{"new_store", "environ", "os", "RAGBOT_TOKEN", "RetryPolicy", "default", "policy", "token"}, notWant: "legacy_open",
	}, {
		path: "svc/store.js", symbol: "openStore",
		src:  "function openStore() {\n  // legacyOpen is gone\n  const s = newStore(process.env.RAGBOT_TOKEN);\n  return s.retryPolicy;\n}\n",
		want: []string{"newStore", "process", "env", "RAGBOT_TOKEN", "retryPolicy"}, notWant: "legacyOpen",
	}, {
		path: "svc/store.ts", symbol: "openStore",
		src:  "export function openStore(cfg: Config): Store {\n  // legacyOpen is gone\n  return newStore(cfg.get(\"server.port\"));\n}\n",
		want: []string{"newStore", "Config", "Store", "cfg", "get", "server.port"}, notWant: "legacyOpen",
	}, {
		path: "svc/Store.java", symbol: "Store.open",
		src:  "class Store {\n  static Store open() {\n    // legacyOpen is gone\n    return Factory.newStore(System.getenv(\"RAGBOT_TOKEN\"));\n  }\n}\n",
		want: []string{"Factory", "newStore", "System", "getenv", "RAGBOT_TOKEN", "Store"}, notWant: "legacyOpen",
	}}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res := Chunk(tt.path, []byte(tt.src), Options{})
			i := slices.IndexFunc(res.Chunks, func(c retrieval.Chunk) bool { return c.Symbol == tt.symbol })
			if i < 0 {
				t.Fatalf("no chunk %q in %+v", tt.symbol, res.Chunks)
			}
			got := res.Chunks[i].Refs
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("refs of %s lack %q: %q", tt.symbol, w, got)
				}
			}
			if slices.Contains(got, tt.notWant) {
				t.Errorf("refs of %s hold %q, which only a comment mentions: %q", tt.symbol, tt.notWant, got)
			}
		})
	}
}
