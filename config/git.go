package config

import (
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Git is the part of a Source that only git sources use, inlined into
// sources[i] in the YAML. A git source also uses url (a remote repository
// to clone instead of path) and token_env (the variable holding its access
// token):
//
//	sources:
//	  - name: payments
//	    kind: git
//	    url: https://github.com/acme/payments.git
//	    token_env: PAYMENTS_GITHUB_TOKEN
//	    branches: [main, release-1.2]
//	    poll_interval: 10m
//	    webhook_secret_env: PAYMENTS_WEBHOOK_SECRET
//	    link_preset: github
//	    go_types: false
//	    scip: false
type Git struct {
	// TokenUser is the basic-auth user name sent with the token; default
	// "x-access-token" (GitHub; GitLab and Gitea accept it with a personal
	// access token). Bitbucket Cloud access tokens want "x-token-auth".
	TokenUser string `yaml:"token_user"`
	// PollInterval is how often `ragbot serve` checks the source for new
	// commits (fetching a remote one), e.g. 5m; 0, the default, means never
	// (push webhooks only). At least MinPollInterval.
	PollInterval time.Duration `yaml:"poll_interval"`
	// WebhookSecretEnv names the variable holding the push webhook's secret
	// (GitHub) or secret token (GitLab); unset, ragbot refuses webhooks for
	// this source.
	WebhookSecretEnv string `yaml:"webhook_secret_env"`
	// LinkPreset makes the deep-link template of a forge from WebURL: one of
	// LinkPresets. Use it or link_template, not both. A markdown source may
	// set it and WebURL too (see Source.LinkTemplate).
	LinkPreset string `yaml:"link_preset"`
	// WebURL is the repository's web page, e.g. "https://github.com/org/repo",
	// for LinkPreset and for matching organisation-wide webhooks; default
	// derived from an https or ssh url.
	WebURL string `yaml:"web_url"`
	// GoTypes, when false, turns off the type resolution of the source's Go
	// modules (ingest/gocalls; docs/callers.md): its Go chunks then get no
	// resolved calls, and "who calls X" matches Go names by text. Unset
	// means true. For a repository whose type-checking costs too much time
	// or memory at each indexed commit.
	GoTypes *bool `yaml:"go_types"`
	// SCIP, when false, turns off the SCIP resolution of the source's
	// Python and JavaScript/TypeScript calls (ingest/scipcalls;
	// docs/callers.md): their chunks then get no resolved calls, and "who
	// calls Type.method" matches their names by text. Unset means true
	// (the indexers run when scripts/install-scip.sh installed them).
	SCIP *bool `yaml:"scip"`
}

// ResolveGoTypes reports whether the Go modules of git source s are
// type-checked when it is indexed: unless go_types is false.
func (s Source) ResolveGoTypes() bool { return s.GoTypes == nil || *s.GoTypes }

// ResolveSCIP reports whether the Python and JavaScript/TypeScript files of
// git source s are indexed with SCIP when it is indexed: unless scip is
// false.
func (s Source) ResolveSCIP() bool { return s.SCIP == nil || *s.SCIP }

// MinPollInterval keeps a misconfigured poll from hammering a forge.
const MinPollInterval = 10 * time.Second

// linkPresets are the blob URLs at a commit with a line range of the usual
// forges; {web} is the repository's web URL.
var linkPresets = map[string]string{
	"github":           "{web}/blob/{commit}/{path}#L{start}-L{end}",
	"gitlab":           "{web}/-/blob/{commit}/{path}#L{start}-{end}",
	"bitbucket":        "{web}/src/{commit}/{path}#lines-{start}:{end}",
	"bitbucket-server": "{web}/browse/{path}?at={commit}#{start}-{end}",
	"gitea":            "{web}/src/commit/{commit}/{path}#L{start}-L{end}",
}

// LinkPresets lists the valid values of link_preset, sorted.
func LinkPresets() []string { return slices.Sorted(maps.Keys(linkPresets)) }

// Links returns the link template of a source: link_template, or the one
// link_preset makes from the web URL, or "" for no links. Example, for
// link_preset gitlab and url git@gitlab.example.com:grp/repo.git:
// "https://gitlab.example.com/grp/repo/-/blob/{commit}/{path}#L{start}-{end}".
func (s Source) Links() string {
	if s.LinkTemplate != "" || s.LinkPreset == "" {
		return s.LinkTemplate
	}
	web := s.RepoWebURL()
	if web == "" {
		return ""
	}
	return strings.ReplaceAll(linkPresets[s.LinkPreset], "{web}", web)
}

// RepoWebURL returns web_url, or the web address derived from an https or
// ssh url (https://host/org/repo for git@host:org/repo.git), or "".
func (s Source) RepoWebURL() string {
	if s.WebURL != "" {
		return strings.TrimRight(s.WebURL, "/")
	}
	u := strings.TrimSpace(s.URL)
	var host, path string
	switch {
	case u == "":
		return ""
	case !strings.Contains(u, "://"): // scp-like [user@]host:path
		h, p, ok := strings.Cut(u, ":")
		if !ok {
			return ""
		}
		if _, after, ok := strings.Cut(h, "@"); ok {
			h = after
		}
		host, path = h, p
	default:
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "https" && pu.Scheme != "http" && pu.Scheme != "ssh") {
			return ""
		}
		host, path = pu.Hostname(), pu.Path
		if pu.Scheme == "http" && pu.Port() != "" {
			host = pu.Host
		}
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || path == "" {
		return ""
	}
	return "https://" + host + "/" + path
}

// gitSource checks the git fields of sources[i] (p is "sources[i]"), and
// that other kinds leave them unset; a markdown source may have the link
// fields (link_preset, web_url), for a folder inside a git work tree.
func (v *validator) gitSource(p string, s Source) {
	if s.Kind != KindGit {
		links := s.Kind == KindMarkdown
		for _, f := range []struct {
			key string
			set bool
		}{
			{"token_user", s.TokenUser != ""}, {"poll_interval", s.PollInterval != 0},
			{"webhook_secret_env", s.WebhookSecretEnv != ""},
			{"link_preset", s.LinkPreset != "" && !links}, {"web_url", s.WebURL != "" && !links},
			{"go_types", s.GoTypes != nil}, {"scip", s.SCIP != nil},
		} {
			if f.set {
				v.bad(p+"."+f.key, "only git sources have %s", f.key)
			}
		}
		if links {
			v.links(p, s)
		}
		return
	}
	if s.URL != "" {
		v.gitURL(p, s)
	} else if s.TokenEnv != "" || s.TokenUser != "" {
		v.bad(p+".token_env", "is only used with url (a remote repository)")
	}
	if d := s.PollInterval; d != 0 && d < MinPollInterval {
		v.bad(p+".poll_interval", "must be 0 (webhooks only) or at least %s, got %s", MinPollInterval, d)
	}
	if env := s.WebhookSecretEnv; env != "" {
		v.envSet(p+".webhook_secret_env", env)
	}
	v.links(p, s)
}

// links checks web_url and link_preset.
func (v *validator) links(p string, s Source) {
	if s.WebURL != "" {
		if u, err := url.Parse(s.WebURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			v.bad(p+".web_url", "must be an absolute http(s) URL, got %q", redactURL(s.WebURL))
		}
	}
	switch {
	case s.LinkPreset == "":
	case linkPresets[s.LinkPreset] == "":
		v.bad(p+".link_preset", "got %q, want one of %s", s.LinkPreset, strings.Join(LinkPresets(), ", "))
	case s.LinkTemplate != "":
		v.bad(p+".link_preset", "set link_template or link_preset, not both")
	case s.RepoWebURL() == "" && s.Kind == KindMarkdown:
		v.bad(p+".link_preset", "needs web_url (the web page of the repository holding the folder)")
	case s.RepoWebURL() == "":
		v.bad(p+".link_preset", "needs web_url (or an https or ssh url to derive it from)")
	}
}

// gitURL checks a remote repository's url and its token settings.
func (v *validator) gitURL(p string, s Source) {
	if s.Path != "" {
		v.bad(p+".url", "set path (a local repository) or url (a remote one), not both")
	}
	raw := s.URL
	scheme := ""
	if i := strings.Index(raw, "://"); i >= 0 {
		scheme = raw[:i]
	}
	switch scheme {
	case "https", "http", "ssh", "file":
		u, err := url.Parse(raw)
		switch {
		case err != nil || (u.Host == "" && scheme != "file") || (scheme == "file" && u.Path == ""):
			v.bad(p+".url", "must be a repository URL, got %q", redactURL(raw))
		case u.User != nil && (scheme == "https" || scheme == "http"):
			v.bad(p+".url", "must not hold credentials; put the token in the variable named by token_env")
		}
	default:
		if scheme != "" || !scpLike(raw) {
			v.bad(p+".url", "must be an https://, http://, ssh://, git@host:path or file:// URL, got %q", redactURL(raw))
		}
	}
	if s.TokenEnv == "" {
		if s.TokenUser != "" {
			v.bad(p+".token_user", "is only used with token_env")
		}
		return
	}
	if scheme != "https" && scheme != "http" {
		v.bad(p+".token_env", "is only used with an http(s) url; ssh uses the ssh agent's keys")
		return
	}
	v.envSet(p+".token_env", s.TokenEnv)
}

// scpLike reports whether u is git's scp-like syntax, [user@]host:path.
func scpLike(u string) bool {
	host, path, ok := strings.Cut(u, ":")
	return ok && host != "" && path != "" && !strings.ContainsAny(host, "/ ")
}

// envSet checks that the variable named env is a valid name and is set.
func (v *validator) envSet(field, env string) {
	if !envName.MatchString(env) {
		v.bad(field, "must be an environment variable name, got %q", env)
		return
	}
	if val, ok := v.c.lookup()(env); !ok || val == "" {
		v.bad(field, "names %s, which is not set in the environment", env)
	}
}

// GitSecrets are the credentials of one git source, read from the
// environment.
type GitSecrets struct {
	Token   Secret // access token for an http(s) url; "" for none
	Webhook Secret // push webhook secret; "" refuses webhooks
}

// GitSecrets reads the token and webhook secret of s from the variables
// that token_env and webhook_secret_env name (validation checked they are set).
func (c *Config) GitSecrets(s Source) GitSecrets {
	get := func(name string) Secret {
		if name == "" {
			return ""
		}
		v, _ := c.lookup()(name)
		return Secret(v)
	}
	out := GitSecrets{Webhook: get(s.WebhookSecretEnv)}
	if s.URL != "" && slices.Contains([]string{"https", "http"}, strings.SplitN(s.URL, "://", 2)[0]) {
		out.Token = get(s.TokenEnv)
	}
	return out
}
