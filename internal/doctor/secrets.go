package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	slackgo "github.com/slack-go/slack"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/ragbot/ragbot/config"
)

// checkWebhookSecrets: every source with webhook_secret_env has its secret.
func (d *Doctor) checkWebhookSecrets(cfg *config.Config) {
	for _, s := range cfg.Sources {
		if s.WebhookSecretEnv == "" {
			continue
		}
		if cfg.GitSecrets(s).Webhook == "" {
			d.line(checkFail, "webhook "+s.Name, s.WebhookSecretEnv+" is not set: pushes to /webhooks/"+s.Name+" get 401",
				"export "+s.WebhookSecretEnv+" with the secret configured in the GitHub or GitLab hook")
			continue
		}
		d.line(checkOK, "webhook "+s.Name, "secret set ("+s.WebhookSecretEnv+")", "")
	}
}

// checkRedaction warns when indexing.redact is off, and fails when its
// detector cannot be built (an unknown rule id).
func (d *Doctor) checkRedaction(cfg *config.Config, redactorErr error) {
	if !cfg.Indexing.RedactOn() {
		d.line(checkWarn, "redaction", "indexing.redact is false: secrets committed in the sources are stored and posted to chat as they are",
			"remove indexing.redact: false (list test fixtures in indexing.redact_allow_paths instead), then `ragbot index`")
		return
	}
	if redactorErr != nil {
		d.line(checkFail, "redaction", redactorErr.Error(), "fix the indexing section of the config")
		return
	}
	d.line(checkOK, "redaction", fmt.Sprintf("secrets replaced at index time (%d rules off, %d paths allowed)",
		len(cfg.Indexing.RedactDisableRules), len(cfg.Indexing.RedactAllowPaths)), "")
}

// checkConfluence makes one authenticated call per confluence source: GET
// rest/api/user/current (Confluence REST API v1, "Get current user"; Cloud
// and Data Center).
func (d *Doctor) checkConfluence(ctx context.Context, cfg *config.Config) {
	for _, s := range cfg.Sources {
		if s.Kind != config.KindConfluence {
			continue
		}
		name := "confluence " + s.Name
		sec, err := cfg.ConfluenceSecrets(s.Name)
		if err != nil {
			d.line(checkFail, name, err.Error(), "export the variables token_env (and email_env for Cloud) name")
			continue
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(s.URL, "/")+"/rest/api/user/current", nil)
		if err != nil {
			d.line(checkFail, name, err.Error(), "correct the source's url")
			continue
		}
		if s.Flavour == config.FlavourCloud {
			req.SetBasicAuth(sec.Email, sec.Token.Reveal())
		} else {
			req.Header.Set("Authorization", "Bearer "+sec.Token.Reveal())
		}
		resp, err := d.http.Do(req)
		if err != nil {
			d.line(checkFail, name, fmt.Sprintf("cannot reach %s: %v", s.URL, err), "check the url and the network path to Confluence")
			continue
		}
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusOK:
			d.line(checkOK, name, "credentials accepted by "+s.URL, "")
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			d.line(checkFail, name, "Confluence refused the credentials ("+resp.Status+")", "issue a new token and export it in "+s.TokenEnv)
		default:
			d.line(checkFail, name, "GET rest/api/user/current: "+resp.Status, "check the url (Cloud: https://<site>.atlassian.net/wiki)")
		}
	}
}

// checkSlack calls auth.test (api.slack.com/methods/auth.test) with the
// bot token, when Slack is on and the token is in the environment.
func (d *Doctor) checkSlack(ctx context.Context, cfg *config.Config, apiURL string) {
	if !cfg.SlackEnabled() {
		return
	}
	token := os.Getenv(cfg.Slack.BotTokenEnv)
	if token == "" {
		d.line(checkSkip, "slack", cfg.Slack.BotTokenEnv+" not set here; auth.test skipped", "")
		return
	}
	api := slackgo.New(token, slackgo.OptionAPIURL(apiURL), slackgo.OptionHTTPClient(d.http))
	auth, err := api.AuthTestContext(ctx)
	if err != nil {
		d.line(checkFail, "slack", "auth.test: "+err.Error(), "reinstall the app and export its Bot User OAuth Token (xoxb-) in "+cfg.Slack.BotTokenEnv)
		return
	}
	d.line(checkOK, "slack", fmt.Sprintf("auth.test: bot %s in team %s", auth.User, auth.Team), "")
	if cfg.Slack.Mode == config.SlackSocket && os.Getenv(cfg.Slack.AppTokenEnv) == "" {
		d.line(checkFail, "slack", cfg.Slack.AppTokenEnv+" not set: Socket Mode needs the app-level token (xapp-)", "export it, or set slack.mode: http")
	}
}

// checkTeams gets a Bot Framework token with the app's client credentials
// (learn.microsoft.com, "Authentication with the Bot Connector API"), when
// Teams is configured and its password is in the environment.
func (d *Doctor) checkTeams(ctx context.Context, cfg *config.Config) {
	if !cfg.Teams.Enabled() {
		return
	}
	secret := os.Getenv(cfg.Teams.AppPasswordEnv)
	if secret == "" {
		d.line(checkSkip, "teams", cfg.Teams.AppPasswordEnv+" not set here; token check skipped", "")
		return
	}
	cc := clientcredentials.Config{ClientID: cfg.Teams.AppID, ClientSecret: secret, TokenURL: cfg.Teams.TokenURL,
		Scopes: []string{"https://api.botframework.com/.default"}, AuthStyle: oauth2.AuthStyleInParams}
	_, err := cc.Token(context.WithValue(ctx, oauth2.HTTPClient, d.http))
	var re *oauth2.RetrieveError
	switch {
	case errors.As(err, &re):
		d.line(checkFail, "teams", fmt.Sprintf("token endpoint refused app %s: %s", cfg.Teams.AppID, re.Response.Status),
			"check teams.app_id and the client secret in "+cfg.Teams.AppPasswordEnv)
	case err != nil:
		d.line(checkFail, "teams", "token: "+err.Error(), "check teams.token_url and the network path to it")
	default:
		d.line(checkOK, "teams", "token issued for app "+cfg.Teams.AppID, "")
	}
}
