package retrieval

import "testing"

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
