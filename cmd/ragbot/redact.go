package main

import (
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
)

// newRedactor is the secret redactor of indexing.redact (nil when it is
// false): gitleaks' default rules less indexing.redact_disable_rules, with
// indexing.redact_allow_paths left unscanned. Its errors name the field.
func newRedactor(cfg *config.Config) (*ingest.Redactor, error) {
	ix := cfg.Indexing
	if !ix.RedactOn() {
		return nil, nil
	}
	return ingest.NewRedactor(ingest.RedactOptions{AllowPaths: ix.RedactAllowPaths, DisableRules: ix.RedactDisableRules})
}
