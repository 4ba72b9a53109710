package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
)

// Secret is a credential: a token, password or shared secret, read from the
// environment. It prints, logs and marshals as "[redacted]" ("" when empty)
// so that it cannot leak through an error or a log line by accident; Reveal
// returns the value for the one client that sends it. Every package that
// holds a credential uses this type.
type Secret string

// String returns "[redacted]" (or "" when empty).
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// GoString keeps %#v from printing the value.
func (s Secret) GoString() string { return s.String() }

// LogValue keeps slog from printing the value.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON keeps encoding/json (and slog's JSON handler, which encodes
// structs with it) from writing the value.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + s.String() + `"`), nil }

// MarshalText keeps text encoders (YAML, XML, slog's text handler for a
// nested value) from writing the value.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Reveal returns the secret itself.
func (s Secret) Reveal() string { return string(s) }

// SlackSecrets are the Slack credentials `ragbot serve` needs.
type SlackSecrets struct {
	BotToken      Secret // xoxb-..., for the Web API
	AppToken      Secret // xapp-..., Socket Mode only
	SigningSecret Secret // HTTP mode only
}

// SlackSecrets reads the Slack credentials from the variables that the slack
// section names, and checks that the ones the configured mode needs are set
// and well formed. The error has one line per problem, naming the field and
// the variable, e.g. `slack.bot_token (from RAGBOT_SLACK_BOT_TOKEN): must
// start with "xoxb-"`; it never contains a secret.
func (c *Config) SlackSecrets() (SlackSecrets, error) {
	if errs := c.slackTokenProblems(true); len(errs) > 0 {
		errs = append(errs, errors.New("(to run serve without Slack, for webhooks, scheduled syncs and /metrics only, set slack: {enabled: false})"))
		return SlackSecrets{}, errors.Join(errs...)
	}
	get := func(name string) Secret { v, _ := c.lookup()(name); return Secret(v) }
	s := SlackSecrets{BotToken: get(c.Slack.BotTokenEnv)}
	if c.Slack.Mode == SlackHTTP {
		s.SigningSecret = get(c.Slack.SigningSecretEnv)
	} else {
		s.AppToken = get(c.Slack.AppTokenEnv)
	}
	return s, nil
}

// slackTokenProblems checks the credentials of the configured mode; with
// required, a missing one is a problem too.
func (c *Config) slackTokenProblems(required bool) []error {
	k := c.Slack
	type want struct {
		field, env, prefix, what string
	}
	wants := []want{{"slack.bot_token", k.BotTokenEnv, "xoxb-", "the bot token (OAuth & Permissions > Bot User OAuth Token)"}}
	if k.Mode == SlackHTTP {
		wants = append(wants, want{"slack.signing_secret", k.SigningSecretEnv, "", "the signing secret (Basic Information > App Credentials)"})
	} else {
		wants = append(wants, want{"slack.app_token", k.AppTokenEnv, "xapp-", "an app-level token with connections:write (Basic Information > App-Level Tokens) for Socket Mode"})
	}
	var errs []error
	for _, w := range wants {
		if w.env == "" || !envName.MatchString(w.env) {
			continue // reported by chat()
		}
		val, _ := c.lookup()(w.env)
		switch {
		case val == "" && required:
			errs = append(errs, fmt.Errorf("%s (from %s): not set; ragbot serve needs %s", w.field, w.env, w.what))
		case val != "" && w.prefix != "" && !strings.HasPrefix(val, w.prefix):
			errs = append(errs, fmt.Errorf("%s (from %s): must start with %q", w.field, w.env, w.prefix))
		}
	}
	return errs
}

func (c *Config) lookup() func(string) (string, bool) {
	if c.lookupEnv != nil {
		return c.lookupEnv
	}
	return os.LookupEnv
}
