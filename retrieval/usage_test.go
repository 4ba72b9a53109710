package retrieval

import "testing"

// TestUsageName checks the usage patterns on questions as typed in chat,
// lowercase and with typos around the name, and that questions about
// definitions or behaviour do not take the usage path.
func TestUsageName(t *testing.T) {
	tests := []struct {
		q, want string
	}{
		{"who calls newStore", "newStore"},
		{"who calls newStore?", "newStore"},
		{"Who calls NewStore()?", "NewStore"},
		{"who calls `Store.Get`?", "Store.Get"},
		{"where is retryPolicy used", "retryPolicy"},
		{"where is retrypolicy used?", "retrypolicy"},
		{"where's retryPolicy used", "retryPolicy"},
		{"Where is RAGBOT_TOKEN read?", "RAGBOT_TOKEN"},
		{"where is ragbot_token read", "ragbot_token"},
		{"where is the RAGBOT_TOKEN env var read", "RAGBOT_TOKEN"},
		{"where is the server.port config key read?", "server.port"},
		{"callers of foo", "foo"},
		{"Callers of foo_bar?", "foo_bar"},
		{"find all usages of parse_header", "parse_header"},
		{"what uses X", "X"},
		{"what calls get_auth_from_url", "get_auth_from_url"},
		{"which functions call stripFlags?", "stripFlags"},
		{"where is setPathValue called?", "setPathValue"},
		{"where do we call mergePersistentFlags", "mergePersistentFlags"},
		{"where is the handleError function being called", "handleError"},
		// Go's names for a method, as traces print them
		{"who calls (*Store).Upsert", "Store.Upsert"},
		{"who calls weaviate.(*Store).Upsert?", "Store.Upsert"},
		{"callers of weaviate.Store.Upsert", "Store.Upsert"},
		{"who calls os.Getenv", "Getenv"},
		// not usage questions
		{"where is newStore defined?", ""},
		{"where is newstore", ""},
		{"where is the retry for 503 errors?", ""},
		{"what is retryPolicy", ""},
		{"how do we use the cache", ""},
		{"where is RAGBOT_TOKEN set", ""},
		{"who wrote the retry policy", ""},
		{"where is the config file read from disk", ""},
		{"where is the TrailingLogs setting used to decide how many entries survive?", ""},
		{"where is the timezones used for datetime types defined?", ""},
		{"which code calls React Native?", ""},
	}
	for _, tt := range tests {
		got, ok := UsageName(tt.q)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("UsageName(%q) = %q, %v; want %q", tt.q, got, ok, tt.want)
		}
	}
}

// TestUsageTitle checks the title of a usage answer, also when the name
// asked has no definition in its case and another case's is shown.
func TestUsageTitle(t *testing.T) {
	tests := []struct {
		u    Usage
		want string
	}{
		{Usage{Name: "newStore", Definitions: 1, Sites: 3, Files: 2}, "newStore is used in 3 places in 2 files"},
		{Usage{Name: "NewStore", Asked: "newStore", Definitions: 1, Sites: 1, Files: 1}, "no newStore; showing NewStore: NewStore is used in 1 place"},
		{Usage{Name: "NewStore", Asked: "newStore", Definitions: 1}, "no newStore; showing NewStore: NewStore: no callers indexed (callers outside the indexed sources, e.g. of an exported API, are not seen)"},
		{Usage{Name: "RAGBOT_TOKEN", Sites: 4, Files: 2, Mentions: 3}, "RAGBOT_TOKEN is used in 4 places in 2 files; code that reads it first, then 3 mentions in other files"},
		{Usage{Name: "RAGBOT_TOKEN", Sites: 6, Files: 3, Sets: 2, Mentions: 1}, "RAGBOT_TOKEN is used in 6 places in 3 files; code that reads it first, then 2 places that set it, then 1 mention in other files"},
		{Usage{Name: "RAGBOT_TOKEN", Sites: 2, Files: 2, Sets: 1}, "RAGBOT_TOKEN is used in 2 places in 2 files; code that reads it first, then 1 place that sets it"},
		{Usage{Name: "RAGBOT_TOKEN", Sites: 2, Files: 1, Sets: 2}, "RAGBOT_TOKEN is used in 2 places in 1 file"},
	}
	for _, tt := range tests {
		if got := tt.u.Title(); got != tt.want {
			t.Errorf("%+v.Title() = %q; want %q", tt.u, got, tt.want)
		}
	}
}
