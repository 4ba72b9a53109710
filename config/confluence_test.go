package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config"
)

func TestConfluenceGood(t *testing.T) {
	cfg, err := parseFile(t, "good-confluence.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []config.Source{
		{Name: "ops-runbooks", Kind: "confluence", URL: "https://acme.atlassian.net/wiki", Confluence: config.Confluence{
			Flavour: "cloud", Spaces: []string{"OPS"}, TTL: "24h", TTLDuration: 24 * time.Hour,
			EmailEnv: "RAGBOT_CONFLUENCE_EMAIL", TokenEnv: "RAGBOT_CONFLUENCE_TOKEN",
		}},
		{Name: "specs", Kind: "confluence", URL: "https://conf.example.com/confluence", ACL: []string{"engineering"}, Confluence: config.Confluence{
			Flavour: "datacenter", Spaces: []string{"ENG", "~ann.lee"}, Label: "spec", CQL: "ancestor = 98305",
			TTL: "7d", TTLDuration: 7 * 24 * time.Hour, Schedule: "0 3 * * *", TokenEnv: "SPECS_PAT",
		}},
		{Name: "exported", Kind: "html", Path: "docs", Exclude: []string{"attachments"}},
	}
	if diff := cmp.Diff(want, cfg.Sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	var ids []string
	for _, s := range cfg.Sources {
		ids = append(ids, s.SourceID())
	}
	if diff := cmp.Diff([]string{"confluence:ops-runbooks", "confluence:specs", "docs:exported"}, ids); diff != "" {
		t.Errorf("source ids (-want +got):\n%s", diff)
	}
}

// TestConfluenceBadConfigs parses each bad-confluence-*.yaml (one fault a
// file) and checks the exact message.
func TestConfluenceBadConfigs(t *testing.T) {
	tests := []struct{ file, want string }{
		{"bad-confluence-no-url.yaml", `sources[0].url: must be set: the site's base URL, e.g. https://acme.atlassian.net/wiki`},
		{"bad-confluence-url-credentials.yaml", `sources[0].url: must not hold credentials; put the token in the variable named by token_env`},
		{"bad-confluence-flavour.yaml", `sources[0].flavour: got "server", want cloud or datacenter`},
		{"bad-confluence-no-spaces.yaml", `sources[0].spaces: must list at least one space key, e.g. [OPS]`},
		{"bad-confluence-ttl.yaml", `sources[0].ttl: want a positive duration such as 24h, 90m or 7d, got "3 days"`},
		{"bad-confluence-ttl-too-short.yaml", `sources[0].ttl: must be at least 5m0s, got 30s`},
		{"bad-confluence-schedule.yaml", `sources[0].schedule: not a cron spec (minute hour day-of-month month day-of-week, or @daily, @every 12h): expected exactly 5 fields, found 2: [every night]`},
		{"bad-confluence-path.yaml", `sources[0].path: a confluence source has no path; its pages come from url`},
		{"bad-confluence-email-on-datacenter.yaml", `sources[0].email_env: only cloud uses an email; datacenter authenticates with the token alone`},
		{"bad-spaces-on-markdown.yaml", "sources[0].spaces: only confluence sources have spaces\nsources[0].ttl: only confluence sources have ttl"},
		{"bad-html-missing-path.yaml", `sources[0].path: "no-such-export" does not exist`},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".yaml"), func(t *testing.T) {
			_, err := parseFile(t, tt.file, nil)
			if err == nil {
				t.Fatalf("%s parsed without error, want %q", tt.file, tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTTL(t *testing.T) {
	for in, want := range map[string]time.Duration{"24h": 24 * time.Hour, "90m": 90 * time.Minute, "7d": 7 * 24 * time.Hour, "2w": 14 * 24 * time.Hour} {
		if got, err := config.ParseTTL(in); err != nil || got != want {
			t.Errorf("ParseTTL(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0d", "-1h", "7 d", "1.5d", "d"} {
		if _, err := config.ParseTTL(in); err == nil {
			t.Errorf("ParseTTL(%q) succeeded, want an error", in)
		}
	}
}

func TestConfluenceSecrets(t *testing.T) {
	tests := []struct {
		name, source string
		env          map[string]string
		want         config.ConfluenceSecrets
		wantErr      string
	}{
		{name: "cloud", source: "ops-runbooks", env: map[string]string{"RAGBOT_CONFLUENCE_EMAIL": "bot@acme.com", "RAGBOT_CONFLUENCE_TOKEN": "tok-1"},
			want: config.ConfluenceSecrets{Email: "bot@acme.com", Token: "tok-1"}},
		{name: "datacenter with its own variable", source: "specs", env: map[string]string{"SPECS_PAT": "pat-2"},
			want: config.ConfluenceSecrets{Token: "pat-2"}},
		{name: "cloud without either", source: "ops-runbooks", env: map[string]string{},
			wantErr: "sources[0].token (from RAGBOT_CONFLUENCE_TOKEN): not set; ragbot needs the Confluence API token (id.atlassian.com > Security > API tokens)\n" +
				"sources[0].email (from RAGBOT_CONFLUENCE_EMAIL): not set; Confluence Cloud needs the email of the token's account"},
		{name: "datacenter without its token", source: "specs", env: map[string]string{"RAGBOT_CONFLUENCE_TOKEN": "not this one"},
			wantErr: "sources[1].token (from SPECS_PAT): not set; ragbot needs the Confluence personal access token"},
		{name: "not confluence", source: "exported", wantErr: `sources[2]: "exported" is a html source, not confluence`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseFile(t, "good-confluence.yaml", tt.env)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cfg.ConfluenceSecrets(tt.source)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want:\n%s", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ConfluenceSecrets = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestDocTTLs: the TTL of each confluence source, by source id; other
// kinds have none.
func TestDocTTLs(t *testing.T) {
	cfg := &config.Config{Sources: []config.Source{
		{Name: "wiki", Kind: config.KindConfluence, Confluence: config.Confluence{TTLDuration: 24 * time.Hour}},
		{Name: "export", Kind: config.KindHTML}, {Name: "app", Kind: config.KindGit},
	}}
	if diff := cmp.Diff(map[string]time.Duration{"confluence:wiki": 24 * time.Hour}, cfg.DocTTLs()); diff != "" {
		t.Errorf("DocTTLs (-want +got):\n%s", diff)
	}
}
