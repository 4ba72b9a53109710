package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviatelocal"
)

// shardsClusterPort is the first node's HTTP port of TestClusterShards'
// 3-node cluster: 8650-8655, 8660-8665 and 8670-8675, clear of
// TestClusterNodeLoss's 8520 range, so both may run at once.
const shardsClusterPort = 8650

// TestClusterShards: on a real 3-node Weaviate cluster, weaviate.shards sets
// how many shards the chunk collection is created with, and Weaviate
// spreads them over the nodes: shards 3 puts one on each node, shards 6 two
// on each, shards 1 all of it on a single node; left unset, Weaviate's
// default is one shard per node. Each collection indexes a repository and
// answers from it, and opening one with another shards value is refused,
// naming the key.
func TestClusterShards(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl := startCluster(ctx, t, shardsClusterPort, "RAGBOT_TEST_SHARDS_WEAVIATE_KEY")
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "httpx/limits.go": limitsGo, "README.md": readme})
	config := func(collection, shards string) string {
		body := fmt.Sprintf(`weaviate:
  urls: [%s]
  api_key_env: RAGBOT_TEST_SHARDS_WEAVIATE_KEY
  collection: %s
%ssources:
  - name: httpx
    kind: git
    path: %s
`, strings.Join(cl.URLs(), ", "), collection, shards, repo)
		path := filepath.Join(t.TempDir(), "ragbot.yaml")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// shardsByNode reads GET /v1/nodes/{class}?output=verbose: the number
	// of the class's shards each node holds.
	shardsByNode := func(class string) map[string]int {
		t.Helper()
		var nodes struct {
			Nodes []struct {
				Name   string `json:"name"`
				Shards []struct {
					Class string `json:"class"`
				} `json:"shards"`
			} `json:"nodes"`
		}
		if err := weaviatelocal.GetJSON(ctx, cl.Nodes[0].URL+"/v1/nodes/"+class+"?output=verbose", cl.Nodes[0].APIKey, &nodes); err != nil {
			t.Fatalf("GET /v1/nodes/%s: %v", class, err)
		}
		out := map[string]int{}
		for _, n := range nodes.Nodes {
			for _, s := range n.Shards {
				if s.Class == class {
					out[n.Name]++
				}
			}
		}
		return out
	}
	for _, tt := range []struct {
		collection, key string
		want            map[string]int // shards per node
	}{
		{"Shards3", "  shards: 3\n", map[string]int{"node1": 1, "node2": 1, "node3": 1}},
		{"Shards6", "  shards: 6\n", map[string]int{"node1": 2, "node2": 2, "node3": 2}},
		{"ShardsDefault", "", map[string]int{"node1": 1, "node2": 1, "node3": 1}},
	} {
		cfg := config(tt.collection, tt.key)
		if code, _, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
			t.Fatalf("%s: index: exit %d\n%s", tt.collection, code, errOut)
		}
		got := shardsByNode(tt.collection)
		if !maps.Equal(got, tt.want) {
			t.Errorf("%s (%q): shards by node %v, want %v", tt.collection, strings.TrimSpace(tt.key), got, tt.want)
		}
		t.Logf("%s (%q): shards by node %v", tt.collection, strings.TrimSpace(tt.key), got)
		code, out, errOut := ragbot(t, "ask", "--config", cfg, "--json", "when does the circuit breaker refuse requests?")
		if code != 0 {
			t.Fatalf("%s: ask: exit %d\n%s", tt.collection, code, errOut)
		}
		var ans retrieval.Answer
		if err := json.Unmarshal([]byte(out), &ans); err != nil {
			t.Fatalf("%s: ask --json: %v\n%s", tt.collection, err, out)
		}
		if len(ans.Snippets) == 0 || ans.Snippets[0].Path != "httpx/limits.go" || len(ans.Warnings) > 0 {
			t.Errorf("%s: answer %s with %d snippets (first %+v), warnings %q; want httpx/limits.go first, no warning",
				tt.collection, ans.Coverage, len(ans.Snippets), firstCitation(ans.Snippets), ans.Warnings)
		}
	}
	// One shard: the whole collection on one node, the others hold none of it.
	cfg1 := config("Shards1", "  shards: 1\n")
	if code, _, errOut := ragbot(t, "index", "--config", cfg1); code != 0 {
		t.Fatalf("Shards1: index: exit %d\n%s", code, errOut)
	}
	if got := shardsByNode("Shards1"); len(got) != 1 || slices.Collect(maps.Values(got))[0] != 1 {
		t.Errorf("Shards1: shards by node %v, want one shard on one node", got)
	}
	// The shard count is fixed at creation: another value is refused.
	code, _, errOut := ragbot(t, "ask", "--config", config("Shards3", "  shards: 2\n"), "Jitter")
	if code == 0 || !strings.Contains(errOut, "has 3 shards, weaviate.shards is 2") {
		t.Errorf("ask Shards3 with shards: 2: exit %d, want an error naming weaviate.shards\n%s", code, errOut)
	}
}

func firstCitation(s []retrieval.Snippet) any {
	if len(s) == 0 {
		return nil
	}
	return s[0].Citation
}
