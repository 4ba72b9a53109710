package config_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config"
)

const teamsAppID = "8e6f0a52-1c9d-4b8a-9d55-3f1c2d4e5a6b"

// TestTeamsSection parses a minimal teams section and one that sets every key.
func TestTeamsSection(t *testing.T) {
	const sources = "sources: [{name: handbook, kind: markdown, path: docs}]\n"
	tests := []struct {
		name, yaml string
		want       config.Teams
	}{
		{
			name: "defaults",
			yaml: "teams: {app_id: " + teamsAppID + "}\n",
			want: config.Teams{AppID: teamsAppID, AppPasswordEnv: "RAGBOT_TEAMS_APP_PASSWORD", Tenant: "botframework.com",
				TokenURL:          "https://login.microsoftonline.com/botframework.com/oauth2/v2.0/token",
				OpenIDMetadataURL: "https://login.botframework.com/v1/.well-known/openidconfiguration", AnswerTimeout: 30 * time.Second},
		},
		{
			name: "single tenant",
			yaml: "teams: {app_id: " + teamsAppID + ", tenant: 72f988bf-86f1-41af-91ab-2d7cd011db47}\n",
			want: config.Teams{AppID: teamsAppID, AppPasswordEnv: "RAGBOT_TEAMS_APP_PASSWORD", Tenant: "72f988bf-86f1-41af-91ab-2d7cd011db47",
				TokenURL:          "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/oauth2/v2.0/token",
				OpenIDMetadataURL: "https://login.botframework.com/v1/.well-known/openidconfiguration", AnswerTimeout: 30 * time.Second},
		},
		{
			name: "every key",
			yaml: `teams:
  app_id: ` + teamsAppID + `
  app_password_env: BOT_SECRET
  tenant: contoso.onmicrosoft.com
  token_url: http://127.0.0.1:5555/token
  openid_metadata_url: http://127.0.0.1:5555/openid
  answer_timeout: 1m
`,
			want: config.Teams{AppID: teamsAppID, AppPasswordEnv: "BOT_SECRET", Tenant: "contoso.onmicrosoft.com",
				TokenURL: "http://127.0.0.1:5555/token", OpenIDMetadataURL: "http://127.0.0.1:5555/openid", AnswerTimeout: time.Minute},
		},
		{name: "absent", yaml: "", want: config.Teams{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tt.yaml+sources), dir, env(nil))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, cfg.Teams); diff != "" {
				t.Errorf("teams (-want +got):\n%s", diff)
			}
			if got, want := cfg.Teams.Enabled(), tt.want.AppID != ""; got != want {
				t.Errorf("Enabled() = %v, want %v", got, want)
			}
		})
	}
}

func TestBadTeamsConfigs(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"bad-teams-app-id.yaml", `teams.app_id: must be the bot's Microsoft App ID, a GUID such as 8e6f0a52-1c9d-4b8a-9d55-3f1c2d4e5a6b, got "ragbot"`},
		{"bad-teams-no-app-id.yaml", `teams.app_id: must be set to the bot's Microsoft App ID (a GUID) for the other teams settings to apply`},
		{"bad-teams-metadata-url.yaml", `teams.openid_metadata_url: must be an absolute http(s) URL without credentials, got "login.botframework.com/v1/.well-known/openidconfiguration"`},
		{"bad-teams-token-url-credentials.yaml", `teams.token_url: must be an absolute http(s) URL without credentials, got "https://xxxxx@login.example.com/token"`},
		{"bad-teams-tenant.yaml", `teams.tenant: must be "botframework.com" (multi-tenant) or the bot's tenant id, got "https://login.microsoftonline.com/contoso"`},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".yaml"), func(t *testing.T) {
			_, err := parseFile(t, tt.file, nil)
			if err == nil {
				t.Fatalf("%s parsed without error, want %q", tt.file, tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("%s error mismatch (-want +got):\n%s", tt.file, diff)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %q leaks a password", err)
			}
		})
	}
}

func TestTeamsParseErrors(t *testing.T) {
	const sources = "sources: [{name: handbook, kind: markdown, path: docs}]\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"password env", "teams: {app_id: " + teamsAppID + ", app_password_env: 'MY-SECRET'}\n",
			`teams.app_password_env: must be an environment variable name, got "MY-SECRET"`},
		{"answer timeout", "teams: {app_id: " + teamsAppID + ", answer_timeout: 1h}\n",
			"teams.answer_timeout: must be between 0 and 10m0s, got 1h0m0s"},
		{"teams channel id as access key", "access: {channels: {'19:abc@thread.tacv2': [nope]}}\n",
			`access.channels.19:abc@thread.tacv2[0]: "nope" is not the name of a configured source (or "*" for all)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tt.yaml+sources), dir, env(nil))
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want %q", tt.yaml, tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTeamsSecrets: the app password comes from the variable, is redacted
// when printed, and a missing one names the field and the variable.
func TestTeamsSecrets(t *testing.T) {
	const yaml = "teams: {app_id: " + teamsAppID + "}\nsources: [{name: handbook, kind: markdown, path: docs}]\n"
	cfg, err := config.Parse([]byte(yaml), dir, env(map[string]string{"RAGBOT_TEAMS_APP_PASSWORD": "Xy8Q~TEAMSSECRET"}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := cfg.TeamsSecrets()
	if err != nil {
		t.Fatalf("TeamsSecrets: %v", err)
	}
	if s.AppPassword.Reveal() != "Xy8Q~TEAMSSECRET" {
		t.Errorf("AppPassword = %q", s.AppPassword.Reveal())
	}
	if out := fmt.Sprintf("%v %+v %#v", s, s, s); strings.Contains(out, "TEAMSSECRET") {
		t.Errorf("printing the secrets leaks the password: %s", out)
	}

	cfg, err = config.Parse([]byte(yaml), dir, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	_, err = cfg.TeamsSecrets()
	want := "teams.app_password (from RAGBOT_TEAMS_APP_PASSWORD): not set; ragbot serve needs the bot's client secret " +
		"(Azure Bot > Configuration > Manage Password > Certificates & secrets)"
	if err == nil || err.Error() != want {
		t.Errorf("TeamsSecrets without the variable: %v, want %q", err, want)
	}
}

// TestSlackEnabled: a Teams-only config runs no Slack bot (and needs no
// Slack token); a slack section, or no chat section at all, keeps Slack on;
// slack.enabled decides when set.
func TestSlackEnabled(t *testing.T) {
	const sources = "sources: [{name: handbook, kind: markdown, path: docs}]\n"
	teams := "teams: {app_id: " + teamsAppID + "}\n"
	tests := []struct {
		name, yaml string
		want       bool
	}{
		{"no chat section", "", true},
		{"teams only", teams, false},
		{"teams and slack", teams + "slack: {mode: http}\n", true},
		{"teams and empty slack section", teams + "slack: {}\n", true},
		{"slack disabled", "slack: {enabled: false}\n", false},
		{"teams, slack disabled", teams + "slack: {enabled: false, mode: http}\n", false},
		{"teams, slack enabled", teams + "slack: {enabled: true}\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A malformed Slack token is only an error when Slack runs.
			cfg, err := config.Parse([]byte(tt.yaml+sources), dir, env(map[string]string{"RAGBOT_SLACK_BOT_TOKEN": "xoxp-USERSECRET"}))
			if tt.want {
				if err == nil || !strings.Contains(err.Error(), `slack.bot_token (from RAGBOT_SLACK_BOT_TOKEN): must start with "xoxb-"`) {
					t.Errorf("Parse with Slack on and a bad token: %v, want the token reported", err)
				}
				cfg, err = config.Parse([]byte(tt.yaml+sources), dir, env(nil))
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := cfg.SlackEnabled(); got != tt.want {
				t.Errorf("SlackEnabled() = %v, want %v", got, tt.want)
			}
		})
	}
}
