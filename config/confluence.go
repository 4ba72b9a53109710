package config

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Confluence flavours.
const (
	FlavourCloud      = "cloud"      // Atlassian Cloud: REST v2, email + API token
	FlavourDataCenter = "datacenter" // Data Center / Server: REST v1, personal access token
)

// Confluence is the part of a Source that only confluence sources use,
// inlined into sources[i] in the YAML:
//
//	sources:
//	  - name: ops-runbooks
//	    kind: confluence
//	    url: https://acme.atlassian.net/wiki
//	    spaces: [OPS]
//	    label: runbook          # optional
//	    ttl: 24h                # or 7d
//	    token_env: OPS_CONFLUENCE_TOKEN
type Confluence struct {
	// Flavour is "cloud" or "datacenter"; default cloud when url's host ends
	// in .atlassian.net, datacenter otherwise.
	Flavour string `yaml:"flavour"`
	// Spaces are the keys of the spaces to index, e.g. [OPS, ENG].
	Spaces []string `yaml:"spaces"`
	// Label keeps only the pages with this label; "" means all.
	Label string `yaml:"label"`
	// CQL is an extra condition ANDed to the space (and label) filter, e.g.
	// `ancestor = 98305`; "" means none.
	CQL string `yaml:"cql"`
	// TTL is how long a sync stays fresh: serve re-syncs when it expires, and
	// answers warn about snippets of a source not synced within it. A Go
	// duration or whole days or weeks: "24h", "90m", "7d", "2w"; default 24h.
	TTL string `yaml:"ttl"`
	// TTLDuration is TTL parsed by Load; 0 for sources that are not confluence.
	TTLDuration time.Duration `yaml:"-"`
	// Schedule is a cron spec for the re-sync, used instead of "every TTL":
	// "0 3 * * *" (03:00 local time daily), "@daily". "" means every TTL.
	Schedule string `yaml:"schedule"`
	// EmailEnv names the variable holding the Atlassian account email of the
	// API token (cloud only); default RAGBOT_CONFLUENCE_EMAIL.
	EmailEnv string `yaml:"email_env"`
	// TokenEnv names the variable holding the Cloud API token or the Data
	// Center personal access token; default RAGBOT_CONFLUENCE_TOKEN.
	TokenEnv string `yaml:"token_env"`
}

// Defaults of confluence sources.
const (
	DefaultConfluenceTTL   = 24 * time.Hour
	DefaultConfluenceEmail = "RAGBOT_CONFLUENCE_EMAIL"
	DefaultConfluenceToken = "RAGBOT_CONFLUENCE_TOKEN"
	// MinConfluenceTTL keeps a misconfigured TTL from hammering the site.
	MinConfluenceTTL = 5 * time.Minute
)

func (c *Config) applyConfluenceDefaults() {
	for i := range c.Sources {
		s := &c.Sources[i]
		if s.Kind != KindConfluence {
			continue
		}
		if s.Flavour == "" {
			s.Flavour = FlavourDataCenter
			if u, err := url.Parse(s.URL); err == nil && strings.HasSuffix(strings.ToLower(u.Hostname()), ".atlassian.net") {
				s.Flavour = FlavourCloud
			}
		}
		s.TTL = cmp.Or(s.TTL, "24h")
		s.TokenEnv = cmp.Or(s.TokenEnv, DefaultConfluenceToken)
		if s.EmailEnv == "" && s.Flavour == FlavourCloud {
			s.EmailEnv = DefaultConfluenceEmail
		}
	}
}

// spaceKey is what Confluence accepts as a space key: letters and digits
// for a global space, "~" and the user name or account id for a personal one.
var spaceKey = regexp.MustCompile(`^([A-Za-z0-9_-]+|~[^\s"(),]+)$`)

// confluence checks the confluence fields of sources[i], and that other
// kinds leave them unset. It fills TTLDuration.
func (v *validator) confluence(i int, s Source) {
	p := fmt.Sprintf("sources[%d]", i)
	if s.Kind != KindConfluence {
		for _, f := range []struct {
			key string
			set bool
		}{
			{"flavour", s.Flavour != ""}, {"spaces", len(s.Spaces) > 0}, {"label", s.Label != ""}, {"cql", s.CQL != ""},
			{"ttl", s.TTL != ""}, {"schedule", s.Schedule != ""}, {"email_env", s.EmailEnv != ""},
			{"url", s.URL != "" && (s.Kind == KindMarkdown || s.Kind == KindHTML)},
		} {
			if f.set {
				v.bad(p+"."+f.key, "only confluence sources have %s", f.key)
			}
		}
		return
	}
	if u, err := url.Parse(s.URL); s.URL == "" {
		v.bad(p+".url", "must be set: the site's base URL, e.g. https://acme.atlassian.net/wiki")
	} else if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		v.bad(p+".url", "must be an absolute http(s) URL, got %q", redactURL(s.URL))
	} else if u.User != nil {
		v.bad(p+".url", "must not hold credentials; put the token in the variable named by token_env")
	} else if u.RawQuery != "" || u.Fragment != "" {
		v.bad(p+".url", "must be the base URL without query or fragment, got %q", s.URL)
	}
	if s.Flavour != FlavourCloud && s.Flavour != FlavourDataCenter {
		v.bad(p+".flavour", "got %q, want cloud or datacenter", s.Flavour)
	}
	if len(s.Spaces) == 0 {
		v.bad(p+".spaces", "must list at least one space key, e.g. [OPS]")
	}
	for j, k := range s.Spaces {
		if !spaceKey.MatchString(k) {
			v.bad(fmt.Sprintf("%s.spaces[%d]", p, j), "not a space key: %q", k)
		}
	}
	if strings.ContainsFunc(s.Label, func(r rune) bool { return r == ' ' || r == '"' || r == '\n' }) {
		v.bad(p+".label", "a label has no spaces or quotes, got %q", s.Label)
	}
	if d, err := ParseTTL(s.TTL); err != nil {
		v.bad(p+".ttl", "%v", err)
	} else if d < MinConfluenceTTL {
		v.bad(p+".ttl", "must be at least %s, got %s", MinConfluenceTTL, s.TTL)
	} else {
		v.c.Sources[i].TTLDuration = d
	}
	if s.Schedule != "" {
		if _, err := cron.ParseStandard(s.Schedule); err != nil {
			v.bad(p+".schedule", "not a cron spec (minute hour day-of-month month day-of-week, or @daily, @every 12h): %v", err)
		}
	}
	if s.Flavour == FlavourDataCenter && s.EmailEnv != "" {
		v.bad(p+".email_env", "only cloud uses an email; datacenter authenticates with the token alone")
	}
	for _, f := range []struct{ key, name string }{{"token_env", s.TokenEnv}, {"email_env", s.EmailEnv}} {
		if f.name != "" && !envName.MatchString(f.name) {
			v.bad(p+"."+f.key, "must be an environment variable name, got %q", f.name)
		}
	}
}

// ParseTTL reads a TTL: a Go duration ("36h", "90m") or a whole number of
// days or weeks ("7d", "2w").
func ParseTTL(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(strings.TrimSuffix(s, "d")); err == nil && strings.HasSuffix(s, "d") && n > 0 {
		return time.Duration(n) * 24 * time.Hour, nil
	}
	if n, err := strconv.Atoi(strings.TrimSuffix(s, "w")); err == nil && strings.HasSuffix(s, "w") && n > 0 {
		return time.Duration(n) * 7 * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("want a positive duration such as 24h, 90m or 7d, got %q", s)
	}
	return d, nil
}

// ConfluenceSecrets are the credentials of one confluence source.
type ConfluenceSecrets struct {
	Email string // cloud only
	Token Secret // API token (cloud) or personal access token (datacenter)
}

// ConfluenceSecrets reads the credentials of the confluence source named
// name from the variables its email_env and token_env name. The error names
// the field and the variable, never a value: `sources[2].token (from
// RAGBOT_CONFLUENCE_TOKEN): not set; ragbot needs the Confluence API token`.
// It is checked when a source is indexed, not at load, so that `ragbot ask`
// runs where the token is not set.
func (c *Config) ConfluenceSecrets(name string) (ConfluenceSecrets, error) {
	for i, s := range c.Sources {
		if s.Name != name {
			continue
		}
		if s.Kind != KindConfluence {
			return ConfluenceSecrets{}, fmt.Errorf("sources[%d]: %q is a %s source, not confluence", i, name, s.Kind)
		}
		p := fmt.Sprintf("sources[%d]", i)
		get := func(name string) string { v, _ := c.lookup()(name); return strings.TrimSpace(v) }
		var out ConfluenceSecrets
		var errs []error
		out.Token = Secret(get(s.TokenEnv))
		if out.Token == "" {
			what := "personal access token"
			if s.Flavour == FlavourCloud {
				what = "API token (id.atlassian.com > Security > API tokens)"
			}
			errs = append(errs, fmt.Errorf("%s.token (from %s): not set; ragbot needs the Confluence %s", p, s.TokenEnv, what))
		}
		if s.Flavour == FlavourCloud {
			out.Email = get(s.EmailEnv)
			if out.Email == "" {
				errs = append(errs, fmt.Errorf("%s.email (from %s): not set; Confluence Cloud needs the email of the token's account", p, s.EmailEnv))
			}
		}
		return out, errors.Join(errs...)
	}
	return ConfluenceSecrets{}, fmt.Errorf("no source named %q", name)
}

// DocTTLs maps the source id of each confluence source to its TTL, after
// which its snippets are marked stale (ingest.StaleDocs).
func (c *Config) DocTTLs() map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, src := range c.Sources {
		if src.Kind == KindConfluence {
			out[src.SourceID()] = src.TTLDuration
		}
	}
	return out
}
