package config_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config"
)

// TestChatSections parses a config that sets every serve, slack and access key.
func TestChatSections(t *testing.T) {
	data := []byte(`
serve: {listen: ":9090", shutdown_timeout: 10s, max_concurrent_answers: 2, answer_queue_length: 5, answer_queue_wait: 15s}
slack:
  mode: http
  api_url: http://127.0.0.1:5555/api/
  bot_token_env: BOT
  app_token_env: APP
  signing_secret_env: SIGNING
  command: /find
  answer_timeout: 1m
access:
  default: []
  channels:
    C0PAY: [payments]
    C0ALL: ["*"]
  groups:
    finance: [U0ALICE, C0FIN]
sources:
  - {name: payments, kind: git, path: repo, acl: [finance]}
  - {name: handbook, kind: markdown, path: docs}
`)
	got, err := config.Parse(data, dir, env(nil))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := struct {
		Serve  config.Serve
		Slack  config.Slack
		Access config.Access
	}{
		Serve: config.Serve{Listen: ":9090", ShutdownTimeout: 10 * time.Second, MaxConcurrentAnswers: 2, AnswerQueueLength: 5, AnswerQueueWait: 15 * time.Second},
		Slack: config.Slack{Mode: "http", APIURL: "http://127.0.0.1:5555/api/", BotTokenEnv: "BOT", AppTokenEnv: "APP",
			SigningSecretEnv: "SIGNING", Command: "/find", AnswerTimeout: time.Minute},
		Access: config.Access{Default: []string{}, Channels: map[string][]string{"C0PAY": {"payments"}, "C0ALL": {"*"}},
			Groups: map[string][]string{"finance": {"U0ALICE", "C0FIN"}}},
	}
	if diff := cmp.Diff(want, struct {
		Serve  config.Serve
		Slack  config.Slack
		Access config.Access
	}{got.Serve, got.Slack, got.Access}); diff != "" {
		t.Errorf("chat sections mismatch (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		channel string
		want    []string
	}{
		{"C0PAY", []string{"payments"}},
		{"C0ALL", []string{"payments", "handbook"}},
		{"C0OTHER", nil}, // default: [] means nothing
		{"D0DM", nil},
	} {
		if diff := cmp.Diff(tt.want, got.AccessFor(tt.channel)); diff != "" {
			t.Errorf("AccessFor(%q) mismatch (-want +got):\n%s", tt.channel, diff)
		}
	}
}

// TestAccessDefault checks that an unset access.default lets every channel
// see every source, and that "*" is expanded without duplicates.
func TestAccessDefault(t *testing.T) {
	cfg, err := config.Parse([]byte(`
access:
  channels: {C0MIX: [handbook, "*"]}
sources:
  - {name: payments, kind: git, path: repo}
  - {name: handbook, kind: markdown, path: docs}
`), dir, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"payments", "handbook"}, cfg.AccessFor("C0ANY")); diff != "" {
		t.Errorf("unlisted channel (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"handbook", "payments"}, cfg.AccessFor("C0MIX")); diff != "" {
		t.Errorf("C0MIX (-want +got):\n%s", diff)
	}
}

func TestBadChatConfigs(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"bad-slack-mode.yaml", `slack.mode: got "websocket", want socket or http`},
		{"bad-slack-api-url.yaml", `slack.api_url: must be an absolute http(s) URL without credentials, got "slack.com/api"`},
		{"bad-access-unknown-source.yaml", `access.channels.C0PAYMENTS[1]: "paymnets" is not the name of a configured source (or "*" for all)`},
		{"bad-access-group-unused.yaml", `access.groups.finanse: no source lists this group in its acl`},
		{"bad-access-group-member.yaml", `access.groups.finance[1]: "@bob" is not a user or conversation id (e.g. U0123ABCD or C0123ABCD; names, #channel and @user are not accepted)`},
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
		})
	}
}

func TestChatParseErrors(t *testing.T) {
	const sources = "sources: [{name: handbook, kind: markdown, path: docs}]\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"listen without port", "serve: {listen: localhost}\n", `serve.listen: must be host:port, e.g. 127.0.0.1:8080 or :8080, got "localhost"`},
		{"negative shutdown", "serve: {shutdown_timeout: -1s}\n", "serve.shutdown_timeout: must be positive, got -1s"},
		{"no answers at once", "serve: {max_concurrent_answers: -1}\n", "serve.max_concurrent_answers: must be at least 1, got -1"},
		{"negative queue", "serve: {answer_queue_length: -2}\n", "serve.answer_queue_length: must be at least 1, got -2"},
		{"queue wait past the answer timeout", "serve: {answer_queue_wait: 30s}\n",
			"serve.answer_queue_wait: must be positive and shorter than slack.answer_timeout (30s), got 30s"},
		{"queue wait past the Teams answer timeout", "slack: {answer_timeout: 60s}\nteams: {app_id: 8e6f0a52-1c9d-4b8a-9d55-3f1c2d4e5a6b, answer_timeout: 15s}\n",
			"serve.answer_queue_wait: must be shorter than teams.answer_timeout (15s), got 20s"},
		{"api url with credentials", "slack: {api_url: 'https://u:hunter2@slack.example/api/'}\n",
			`slack.api_url: must be an absolute http(s) URL without credentials, got "https://xxxxx@slack.example/api/"`},
		{"env name", "slack: {bot_token_env: 'MY-TOKEN'}\n", `slack.bot_token_env: must be an environment variable name, got "MY-TOKEN"`},
		{"command without slash", "slack: {command: where-is}\n", `slack.command: must be "/" and up to 31 lower-case letters, digits, - or _, got "where-is"`},
		{"answer timeout too long", "slack: {answer_timeout: 1h}\n", "slack.answer_timeout: must be between 0 and 30m (the life of a response_url), got 1h0m0s"},
		{"channel name instead of id", "access: {channels: {'#payments': [handbook]}}\n",
			`access.channels: key "#payments" is not a channel id (e.g. C0123ABCD; names and #channel are not accepted)`},
		{"unknown default source", "access: {default: [handbok]}\n", `access.default[0]: "handbok" is not the name of a configured source (or "*" for all)`},
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
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %q leaks a password", err)
			}
		})
	}
}

// TestSlackSecrets checks the tokens each mode needs: missing and malformed
// ones are reported with the field and the variable, and never echoed.
func TestSlackSecrets(t *testing.T) {
	const sources = "sources: [{name: handbook, kind: markdown, path: docs}]\n"
	const (
		bot     = "xoxb-1-2-BOTSECRET"
		app     = "xapp-1-A1-APPSECRET"
		signing = "8f742231b10e8888abcd99yyyzzz85a5"
	)
	tests := []struct {
		name      string
		yaml      string
		env       map[string]string
		want      config.SlackSecrets
		wantErr   string // from SlackSecrets
		wantParse string // from Parse: malformed tokens already fail there
	}{
		{
			name: "socket mode",
			env:  map[string]string{"RAGBOT_SLACK_BOT_TOKEN": bot, "RAGBOT_SLACK_APP_TOKEN": app, "RAGBOT_SLACK_SIGNING_SECRET": signing},
			want: config.SlackSecrets{BotToken: bot, AppToken: app},
		},
		{
			name: "http mode",
			yaml: "slack: {mode: http}\n",
			env:  map[string]string{"RAGBOT_SLACK_BOT_TOKEN": bot, "RAGBOT_SLACK_SIGNING_SECRET": signing},
			want: config.SlackSecrets{BotToken: bot, SigningSecret: signing},
		},
		{
			name: "variables named in the file",
			yaml: "slack: {bot_token_env: MY_BOT, app_token_env: MY_APP}\n",
			env:  map[string]string{"MY_BOT": bot, "MY_APP": app},
			want: config.SlackSecrets{BotToken: bot, AppToken: app},
		},
		{
			name: "nothing set",
			wantErr: "slack.bot_token (from RAGBOT_SLACK_BOT_TOKEN): not set; ragbot serve needs the bot token (OAuth & Permissions > Bot User OAuth Token)\n" +
				"slack.app_token (from RAGBOT_SLACK_APP_TOKEN): not set; ragbot serve needs an app-level token with connections:write (Basic Information > App-Level Tokens) for Socket Mode" +
				"\n(to run serve without Slack, for webhooks, scheduled syncs and /metrics only, set slack: {enabled: false})",
		},
		{
			name: "http mode without signing secret",
			yaml: "slack: {mode: http}\n",
			env:  map[string]string{"RAGBOT_SLACK_BOT_TOKEN": bot},
			wantErr: "slack.signing_secret (from RAGBOT_SLACK_SIGNING_SECRET): not set; ragbot serve needs the signing secret (Basic Information > App Credentials)" +
				"\n(to run serve without Slack, for webhooks, scheduled syncs and /metrics only, set slack: {enabled: false})",
		},
		{
			name:      "tokens swapped",
			env:       map[string]string{"RAGBOT_SLACK_BOT_TOKEN": app, "RAGBOT_SLACK_APP_TOKEN": bot},
			wantParse: "slack.bot_token (from RAGBOT_SLACK_BOT_TOKEN): must start with \"xoxb-\"\nslack.app_token (from RAGBOT_SLACK_APP_TOKEN): must start with \"xapp-\"",
		},
		{
			name:      "user token",
			yaml:      "slack: {bot_token_env: MY_BOT}\n",
			env:       map[string]string{"MY_BOT": "xoxp-USERSECRET", "RAGBOT_SLACK_APP_TOKEN": app},
			wantParse: `slack.bot_token (from MY_BOT): must start with "xoxb-"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tt.yaml+sources), dir, env(tt.env))
			if tt.wantParse != "" {
				if err == nil {
					t.Fatalf("Parse succeeded, want %q", tt.wantParse)
				}
				if diff := cmp.Diff(tt.wantParse, err.Error()); diff != "" {
					t.Errorf("Parse error mismatch (-want +got):\n%s", diff)
				}
				checkNoSecret(t, err.Error())
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got, err := cfg.SlackSecrets()
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("SlackSecrets succeeded, want %q", tt.wantErr)
				}
				if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
					t.Errorf("SlackSecrets error mismatch (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("SlackSecrets: %v", err)
			}
			if got != tt.want {
				t.Errorf("SlackSecrets = %#v, want the configured values", got) // %#v is redacted
			}
		})
	}
}

func checkNoSecret(t *testing.T, s string) {
	t.Helper()
	for _, secret := range []string{"BOTSECRET", "APPSECRET", "USERSECRET"} {
		if strings.Contains(s, secret) {
			t.Errorf("%q leaks a secret", s)
		}
	}
}

// TestSecretRedacted checks every way a Secret could be printed.
func TestSecretRedacted(t *testing.T) {
	s := config.Secret("xoxb-1-2-BOTSECRET")
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("starting", "token", s, "secrets", config.SlackSecrets{BotToken: s})
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%v %s %#v %+v", s, s, s, config.SlackSecrets{BotToken: s}), logs.String()} {
		checkNoSecret(t, out)
		if !strings.Contains(out, "[redacted]") {
			t.Errorf("%q does not say [redacted]", out)
		}
	}
	if s.Reveal() != "xoxb-1-2-BOTSECRET" {
		t.Errorf("Reveal() = %q", s.Reveal())
	}
}

// TestSlackAPIBase: slack.api_url with one trailing slash, for slack-go.
func TestSlackAPIBase(t *testing.T) {
	for in, want := range map[string]string{
		"https://slack.com/api/":     "https://slack.com/api/",
		"http://127.0.0.1:5555/api":  "http://127.0.0.1:5555/api/",
		"http://127.0.0.1:5555/api/": "http://127.0.0.1:5555/api/",
	} {
		if got := (config.Slack{APIURL: in}).APIBase(); got != want {
			t.Errorf("APIBase of %q = %q, want %q", in, got, want)
		}
	}
}
