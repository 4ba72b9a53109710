package serve

import (
	"context"
	"errors"

	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/bot"
	slackbot "github.com/ragbot/ragbot/bot/slack"
	teamsbot "github.com/ragbot/ragbot/bot/teams"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/internal/metrics"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// Secrets are the credentials of the chat surfaces serve runs.
type Secrets struct {
	Slack config.SlackSecrets // when Slack is on
	Teams config.TeamsSecrets // when teams is configured
}

// ReadSecrets reads the credentials of every chat surface cfg turns on
// from the environment, reporting every missing one at once (each error
// names the field and its variable), so that serve fails before anything
// starts.
func ReadSecrets(cfg *config.Config) (Secrets, error) {
	var s Secrets
	var errSlack, errTeams error
	if cfg.SlackEnabled() {
		s.Slack, errSlack = cfg.SlackSecrets()
	}
	if cfg.Teams.Enabled() {
		s.Teams, errTeams = cfg.TeamsSecrets()
	}
	return s, errors.Join(errSlack, errTeams)
}

// chat makes the chat surfaces cfg turns on: Slack, whose bot token it
// checks (auth.test), answering mentions with answerer and /where-is with
// lister; and Teams, whose app id and password it checks by getting a
// token, answering with answerer (remembering channel threads in turns)
// and its "where is" message extension with lister. Both are scoped by the
// access section (keyed by Slack channel, or Teams channel or chat id) and
// store votes in votes.
func (s *Server) chat(ctx context.Context, cfg *config.Config, sec Secrets, answerer, lister bot.Answerer, votes *weaviate.FeedbackLog, turns *weaviate.Turns) error {
	var err error
	if cfg.SlackEnabled() {
		api := slackgo.New(sec.Slack.BotToken.Reveal(), slackgo.OptionAPIURL(cfg.Slack.APIBase()), slackgo.OptionAppLevelToken(sec.Slack.AppToken.Reveal()))
		s.Slack, err = slackbot.New(ctx, slackbot.Config{
			API: api, SigningSecret: sec.Slack.SigningSecret.Reveal(), Answerer: answerer, Lister: s.metrics.Answerer(metrics.SurfaceSlackCommand, lister),
			Access: channelAccess(cfg), Feedback: votes, Command: cfg.Slack.Command,
			AnswerTimeout: cfg.Slack.AnswerTimeout, Logger: s.log, Hooks: s.metrics.BotHooks(metrics.SurfaceSlack), Claims: s.claims,
			OnReject: s.metrics.Rejected,
		})
		if err != nil {
			return err
		}
	}
	if !cfg.Teams.Enabled() {
		return nil
	}
	t := cfg.Teams
	s.Teams, err = teamsbot.New(ctx, teamsbot.Config{
		AppID: t.AppID, AppPassword: sec.Teams.AppPassword, TokenURL: t.TokenURL,
		OpenIDMetadataURL: t.OpenIDMetadataURL, Answerer: answerer, Access: channelAccess(cfg), Feedback: votes, Turns: turns,
		Lister:        s.metrics.Answerer(metrics.SurfaceTeamsQuery, lister),
		AnswerTimeout: t.AnswerTimeout, Logger: s.log, Hooks: s.metrics.BotHooks(metrics.SurfaceTeams), Claims: s.claims,
	})
	return err
}

// channelAccess turns the access section (source names) into source ids per
// channel; ACL groups keep their names, as chunks store them.
func channelAccess(cfg *config.Config) bot.Access {
	ids := func(names []string) []string {
		out := []string{}
		for _, n := range names {
			if src, ok := cfg.SourceNamed(n); ok {
				out = append(out, src.SourceID())
			}
		}
		return out
	}
	acc := bot.Access{Default: ids(cfg.AccessFor("")), Channels: map[string][]string{}, Groups: cfg.Access.Groups}
	for ch := range cfg.Access.Channels {
		acc.Channels[ch] = ids(cfg.AccessFor(ch))
	}
	return acc
}
