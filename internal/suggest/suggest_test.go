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
