package retrieval_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval"
)

func TestSplitIdentifier(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"findByEmail", []string{"find", "by", "email"}},
		{"FindByEmail", []string{"find", "by", "email"}},
		{"HTTPServer", []string{"http", "server"}},
		{"getHTTPResponseCode", []string{"get", "http", "response", "code"}},
		{"parseJSON2XML", []string{"parse", "json2", "xml"}}, // digits stay with the letters before them
		{"user_repo.find_by_email", []string{"user", "repo", "find", "by", "email"}},
		{"SMTP_SMARTHOST", []string{"smtp", "smarthost"}},
		{"set-notifies-stage", []string{"set", "notifies", "stage"}},
		{"notify/set_notifies_stage.go", []string{"notify", "set", "notifies", "stage", "go"}},
		{"GET /v1/orders/{id}", []string{"get", "v1", "orders", "id"}},
		{"__init__", []string{"init"}},
		{"int64", []string{"int64"}},
		{"sha256Sum", []string{"sha256", "sum"}},
		{"v1beta1", []string{"v1", "beta1"}},
		{"md5sum", []string{"md5", "sum"}},
		{"404NotFound", []string{"404", "not", "found"}},
		{"IPv4Address", []string{"i", "pv4", "address"}}, // known limit of case rules
		{"ABC", []string{"abc"}},
		{"AbC", []string{"ab", "c"}},
		{"x", []string{"x"}},
		{"ÜberSicht_größe", []string{"über", "sicht", "größe"}},
		{"cafe\u0301s_menu", []string{"cafe\u0301s", "menu"}}, // a combining accent stays in its piece
		{"", nil},
		{"--", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := retrieval.SplitIdentifier(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SplitIdentifier(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"camelCase adds the joined form", "findByEmail", []string{"find", "by", "email", "findbyemail"}},
		{"snake_case adds the joined form", "find_by_email", []string{"find", "by", "email", "findbyemail"}},
		{"words have no joined form", "find by email", []string{"find", "by", "email"}},
		{"dotted call", "user_repo.find_by_email(ctx)",
			[]string{"user", "repo", "userrepo", "find", "by", "email", "findbyemail", "ctx"}},
		{"question", "Where is the retry for 503 errors?",
			[]string{"where", "is", "the", "retry", "for", "503", "errors"}},
		{"code keeps repeats", `if err != nil { return fmt.Errorf("x: %w", err) }`,
			[]string{"if", "err", "nil", "return", "fmt", "errorf", "x", "w", "err"}},
		{"env var", "SMTP_SMARTHOST=mail:25", []string{"smtp", "smarthost", "smtpsmarthost", "mail", "25"}},
		{"kebab-case is separate words", "kebab-case-name", []string{"kebab", "case", "name"}},
		{"underscores at the ends", "_private __dunder__", []string{"private", "dunder"}},
		{"empty", "", nil},
		{"punctuation only", "{}();", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := retrieval.Terms(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Terms(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestSearchText(t *testing.T) {
	tests := []struct {
		name  string
		chunk retrieval.Chunk
		want  string
	}{
		{
			name: "code",
			chunk: retrieval.Chunk{
				Kind:      retrieval.KindCode,
				Path:      "notify/set_notifies_stage.go",
				Symbol:    "SetNotifiesStage.Exec",
				Signature: "func (n SetNotifiesStage) Exec(ctx context.Context, l *slog.Logger, alerts ...*types.Alert) (context.Context, []*types.Alert, error)",
				Content:   "// Exec implements the Stage interface.\nfunc (n SetNotifiesStage) Exec(ctx context.Context, l *slog.Logger, alerts ...*types.Alert) (context.Context, []*types.Alert, error) {\n\treturn ctx, alerts, nil\n}",
			},
			// Content as terms, with repeats: identifiers split and joined.
			want: "exec implements the stage interface func n set notifies stage setnotifiesstage exec ctx context context l slog logger alerts types alert context context types alert error return ctx alerts nil\n" +
				"set notifies stage setnotifiesstage exec func n ctx context l slog logger alerts types alert error\n" +
				"notify set notifies stage go\n",
		},
		{
			name: "doc section",
			chunk: retrieval.Chunk{
				Kind:      retrieval.KindDoc,
				Path:      "docs/guide.md",
				Symbol:    "Ragbot Guide > Setup > Tokens for Slack",
				Signature: "### Tokens for `Slack`",
				Content:   "### Tokens for `Slack`\n\nSet `SLACK_BOT_TOKEN`.\n",
			},
			want: "tokens for slack set slack bot token slackbottoken\n" +
				"ragbot guide setup tokens for slack\n" +
				"docs guide md\n",
		},
		{
			name: "doc intro",
			chunk: retrieval.Chunk{
				Kind:    retrieval.KindDoc,
				Path:    "README.md",
				Symbol:  "(intro)",
				Content: "---\ntitle: x\n---",
			},
			want: "title x\nreadme md\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := retrieval.SearchText(tt.chunk)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SearchText mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSearchQuery(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		// Terms first (pieces, then the joined identifier), then Weaviate's
		// own tokens of the question that are not among them.
		{"where is findByEmail?", "where is find by email findbyemail"},
		{"resolve_timeout - what is it", "resolve timeout resolvetimeout what is it"},
		{"looking for Silences.Set", "looking for silences set"},
		{"retry retry RETRY", "retry"},
		{"Größe ändern", "größe ändern"},
		{"?!", ""},
	}
	for _, tt := range tests {
		if got := retrieval.SearchQuery(tt.in); got != tt.want {
			t.Errorf("SearchQuery(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
