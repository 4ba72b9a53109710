package config

import (
	"bytes"
	"cmp"
	"fmt"
	"net/url"
	"regexp"
	"time"

	"gopkg.in/yaml.v3"
)

// Teams configures the Microsoft Teams bot (Bot Framework): ragbot serve
// mounts POST /api/messages when AppID is set. The app password (client
// secret) never lives in the file: AppPasswordEnv names the variable.
type Teams struct {
	// AppID is the bot's Microsoft App ID (a GUID, Azure Bot > Configuration):
	// the audience incoming tokens must carry and the client id of the
	// outgoing token. Empty turns Teams off.
	AppID string `yaml:"app_id"`
	// AppPasswordEnv names the variable holding the app's client secret;
	// default RAGBOT_TEAMS_APP_PASSWORD.
	AppPasswordEnv string `yaml:"app_password_env"`
	// Tenant is where the outgoing token comes from: "botframework.com"
	// (default, multi-tenant bots) or the bot's tenant id (single-tenant).
	Tenant string `yaml:"tenant"`
	// TokenURL is the client-credentials endpoint; default
	// https://login.microsoftonline.com/<tenant>/oauth2/v2.0/token.
	TokenURL string `yaml:"token_url"`
	// OpenIDMetadataURL is where the keys that sign incoming activities are
	// found (the SDKs' BotOpenIdMetadata); default
	// https://login.botframework.com/v1/.well-known/openidconfiguration.
	OpenIDMetadataURL string `yaml:"openid_metadata_url"`
	// AnswerTimeout bounds the search part of one answer; default 30s.
	AnswerTimeout time.Duration `yaml:"answer_timeout"`
}

// Defaults of the teams section.
const (
	DefaultTeamsPasswordEnv = "RAGBOT_TEAMS_APP_PASSWORD"
	DefaultTeamsTenant      = "botframework.com"
	// DefaultTeamsOpenIDURL is the Bot Framework's OpenID metadata, where
	// the keys that sign channel -> bot tokens are published ("Authentication
	// with the Bot Connector API", Microsoft Learn); bot/teams uses it when
	// its Config leaves OpenIDMetadataURL empty.
	DefaultTeamsOpenIDURL     = "https://login.botframework.com/v1/.well-known/openidconfiguration"
	defaultTeamsTokenURLStart = "https://login.microsoftonline.com/"
	maxTeamsAnswerTimeout     = 10 * time.Minute
)

// Enabled reports whether the Teams bot is configured (teams.app_id is set).
func (t Teams) Enabled() bool { return t.AppID != "" }

// SlackEnabled reports whether ragbot serve runs the Slack bot: as
// slack.enabled says when it is set; otherwise when the file has a slack
// section, or when Teams is not configured either (a config without chat
// sections keeps running Slack with its defaults, as before Teams).
func (c *Config) SlackEnabled() bool {
	if c.Slack.Enabled != nil {
		return *c.Slack.Enabled
	}
	return c.slackSet || !c.Teams.Enabled()
}

// hasTopKey reports whether the YAML document data has key at its top level.
func hasTopKey(data []byte, key string) bool {
	var top map[string]yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&top); err != nil {
		return false
	}
	_, ok := top[key]
	return ok
}

// applyTeamsDefaults fills the teams section when it is enabled; an
// incomplete section is left as written for validation to report.
func (c *Config) applyTeamsDefaults() {
	t := &c.Teams
	if !t.Enabled() {
		return
	}
	t.AppPasswordEnv = cmp.Or(t.AppPasswordEnv, DefaultTeamsPasswordEnv)
	t.Tenant = cmp.Or(t.Tenant, DefaultTeamsTenant)
	if t.TokenURL == "" && tenantName.MatchString(t.Tenant) {
		t.TokenURL = defaultTeamsTokenURLStart + t.Tenant + "/oauth2/v2.0/token"
	}
	t.OpenIDMetadataURL = cmp.Or(t.OpenIDMetadataURL, DefaultTeamsOpenIDURL)
	t.AnswerTimeout = cmp.Or(t.AnswerTimeout, DefaultAnswerTimeout)
}

var (
	// guid is how Azure writes an app (client) id.
	guid = regexp.MustCompile(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)
	// tenantName is a tenant id or domain ("botframework.com", "contoso.onmicrosoft.com").
	tenantName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.-]*$`)
)

func (v *validator) teams() {
	t := v.c.Teams
	if !t.Enabled() {
		if t != (Teams{}) {
			v.bad("teams.app_id", "must be set to the bot's Microsoft App ID (a GUID) for the other teams settings to apply")
		}
		return
	}
	if !guid.MatchString(t.AppID) {
		v.bad("teams.app_id", "must be the bot's Microsoft App ID, a GUID such as 8e6f0a52-1c9d-4b8a-9d55-3f1c2d4e5a6b, got %q", t.AppID)
	}
	if !envName.MatchString(t.AppPasswordEnv) {
		v.bad("teams.app_password_env", "must be an environment variable name, got %q", t.AppPasswordEnv)
	}
	if !tenantName.MatchString(t.Tenant) {
		v.bad("teams.tenant", `must be "botframework.com" (multi-tenant) or the bot's tenant id, got %q`, t.Tenant)
	}
	if t.TokenURL != "" { // empty only when the tenant is bad, reported above
		v.httpURL("teams.token_url", t.TokenURL)
	}
	v.httpURL("teams.openid_metadata_url", t.OpenIDMetadataURL)
	if a := t.AnswerTimeout; a <= 0 || a > maxTeamsAnswerTimeout {
		v.bad("teams.answer_timeout", "must be between 0 and %s, got %s", maxTeamsAnswerTimeout, a)
	}
}

// httpURL checks that u is an absolute http(s) URL without credentials.
func (v *validator) httpURL(path, u string) {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.User != nil {
		v.bad(path, "must be an absolute http(s) URL without credentials, got %q", redactURL(u))
	}
}

// TeamsSecrets are the Teams credentials ragbot serve needs.
type TeamsSecrets struct {
	AppPassword Secret // the app's client secret, for the client-credentials token
}

// TeamsSecrets reads the app password from the variable teams.app_password_env
// names. The error names the field and the variable, never the value.
func (c *Config) TeamsSecrets() (TeamsSecrets, error) {
	env := c.Teams.AppPasswordEnv
	v, _ := c.lookup()(env)
	if v == "" {
		return TeamsSecrets{}, fmt.Errorf("teams.app_password (from %s): not set; ragbot serve needs the bot's client secret "+
			"(Azure Bot > Configuration > Manage Password > Certificates & secrets)", env)
	}
	return TeamsSecrets{AppPassword: Secret(v)}, nil
}
