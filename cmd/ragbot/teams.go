package main

import (
	"context"
	"errors"

	"github.com/ragbot/ragbot/bot"
	teamsbot "github.com/ragbot/ragbot/bot/teams"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/internal/metrics"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// chatSecrets are the credentials of the chat surfaces serve runs.
type chatSecrets struct {
	slack config.SlackSecrets // when Slack is on
	teams config.TeamsSecrets // when teams is configured
}

// readChatSecrets reads the credentials of every chat surface the config
// turns on, reporting every missing one at once.
func readChatSecrets(cfg *config.Config) (chatSecrets, error) {
	var s chatSecrets
	var errs []error
	if cfg.SlackEnabled() {
		var err error
		s.slack, err = cfg.SlackSecrets()
		errs = append(errs, err)
	}
	if cfg.Teams.Enabled() {
		var err error
		s.teams, err = cfg.TeamsSecrets()
		errs = append(errs, err)
	}
	return s, errors.Join(errs...)
}

// wireTeams makes the Teams surface when teams is configured: it checks the
// app id and password by getting a token, and answers with answerer, scoped
// by the access section (keyed by Teams channel or chat id).
func (s *server) wireTeams(ctx context.Context, secrets config.TeamsSecrets, answerer bot.Answerer, votes *weaviate.FeedbackLog) error {
	cfg := s.app.cfg
	if !cfg.Teams.Enabled() {
		return nil
	}
	t := cfg.Teams
	var err error
	s.teams, err = teamsbot.New(ctx, teamsbot.Config{
		AppID: t.AppID, AppPassword: secrets.AppPassword, TokenURL: t.TokenURL,
		OpenIDMetadataURL: t.OpenIDMetadataURL, Answerer: answerer, Access: channelAccess(cfg), Feedback: votes,
		AnswerTimeout: t.AnswerTimeout, Logger: s.log, Hooks: s.metrics.BotHooks(metrics.SurfaceTeams), Claims: s.claims,
	})
	return err
}
