package suggest

import "testing"

func TestClosest(t *testing.T) {
	cmds := []string{"index", "ask", "eval", "weaviate", "validate", "embeddings", "serve", "feedback"}
	tests := []struct {
		word, want string
		ok         bool
	}{
		{"idnex", "index", true},
		{"aks", "ask", true},
		{"serv", "serve", true},
		{"valdiate", "validate", true},
		{"embedings", "embeddings", true},
		{"xyz", "", false},
		{"deploy", "", false},
	}
	for _, tt := range tests {
		got, ok := Closest(tt.word, cmds)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", tt.word, got, ok, tt.want, tt.ok)
		}
	}
	if got, ok := Closest("exclud", []string{"include", "exclude", "path"}); got != "exclude" || !ok {
		t.Errorf("Closest(exclud) = %q, %v", got, ok)
	}
}

func TestName(t *testing.T) {
	names := []string{"go.etcd.io/bbolt@v1.4.3", "npm:ws@8.18.3", "deb:python3-requests@2.28.1", "docs"}
	tests := []struct {
		word, want string
		ok         bool
	}{
		{"dosc", "docs", true},                     // close: Closest
		{"bbolt", "go.etcd.io/bbolt@v1.4.3", true}, // the only name containing it
		{"REQUESTS", "deb:python3-requests@2.28.1", true},
		{"ws", "", false},  // too short to look for
		{"@", "", false},   // too short, and in three names
		{"8.1", "", false}, // in two names
		{"zzzz", "", false},
	}
	for _, tt := range tests {
		if got, ok := Name(tt.word, names); got != tt.want || ok != tt.ok {
			t.Errorf("Name(%q) = %q, %v; want %q, %v", tt.word, got, ok, tt.want, tt.ok)
		}
	}
}
