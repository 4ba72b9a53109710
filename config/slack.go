package config

import (
	"cmp"
	"fmt"
	"maps"
	"net"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Serve configures `ragbot serve`: the HTTP server that every chat surface
// and webhook mounts its routes on, and how it stops.
type Serve struct {
	// Listen is the host:port of the HTTP server (health check, Slack Events
	// API, slash commands, interactivity, later webhooks); default
	// "127.0.0.1:8080". Port 0 picks a free port.
	Listen string `yaml:"listen"`
	// ShutdownTimeout bounds the graceful stop after SIGINT/SIGTERM: in-flight
	// HTTP requests and answers get this long before they are cancelled;
	// default 25s, under the 30s a container orchestrator usually waits
	// before SIGKILL.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	// MaxConcurrentAnswers is the number of questions searched at once,
	// across Slack mentions, /where-is and Teams; default
	// DefaultMaxConcurrentAnswers. The others wait in a queue.
	MaxConcurrentAnswers int `yaml:"max_concurrent_answers"`
	// AnswerQueueLength is the number of questions that may wait for a
	// search; one more is told at once that the bot is busy. Default
	// DefaultAnswerQueueLength.
	AnswerQueueLength int `yaml:"answer_queue_length"`
	// AnswerQueueWait is how long a question may wait for a search before
	// it is told that the bot is busy; default DefaultAnswerQueueWait. It
	// counts within the answer timeout (slack.answer_timeout,
	// teams.answer_timeout), so it must be shorter than both.
	AnswerQueueWait time.Duration `yaml:"answer_queue_wait"`
}

// Slack transports.
const (
	SlackSocket = "socket" // Socket Mode: an outbound WebSocket, no public URL (app-level token)
	SlackHTTP   = "http"   // HTTP Events API: Slack POSTs to serve.listen (signing secret)
)

// Slack configures the Slack app. Tokens never live in the file: the *_env
// fields name the environment variables that hold them.
type Slack struct {
	// Enabled turns the Slack bot on or off; unset means on when the file
	// has a slack section or no teams section (see Config.SlackEnabled).
	Enabled *bool `yaml:"enabled"`
	// Mode is "socket" (default) or "http".
	Mode string `yaml:"mode"`
	// APIURL is the base URL of the Web API, with a trailing slash; default
	// "https://slack.com/api/". Tests point it at a local server.
	APIURL string `yaml:"api_url"`
	// BotTokenEnv names the variable holding the bot token (xoxb-...);
	// default RAGBOT_SLACK_BOT_TOKEN.
	BotTokenEnv string `yaml:"bot_token_env"`
	// AppTokenEnv names the variable holding the app-level token (xapp-...,
	// scope connections:write) that Socket Mode needs; default
	// RAGBOT_SLACK_APP_TOKEN.
	AppTokenEnv string `yaml:"app_token_env"`
	// SigningSecretEnv names the variable holding the signing secret that
	// the HTTP mode verifies requests with; default RAGBOT_SLACK_SIGNING_SECRET.
	SigningSecretEnv string `yaml:"signing_secret_env"`
	// Command is the slash command answered with a list of locations;
	// default "/where-is". It must match the app's configuration.
	Command string `yaml:"command"`
	// AnswerTimeout bounds one answer (thread lookup, search, posting);
	// default 30s. Slack's response_url stays valid for 30 minutes.
	AnswerTimeout time.Duration `yaml:"answer_timeout"`
}

// Access says which sources each chat channel may see. The filter goes into
// the Weaviate query, so a chunk of another source cannot be retrieved there.
type Access struct {
	// Default lists the source names that a channel not in Channels (and a
	// direct message) may see; "*" means every configured source. Unset
	// means ["*"]; an empty list [] means none.
	Default []string `yaml:"default"`
	// Channels maps a channel id (Slack "C0123ABCD"; ids, not names, since
	// events carry ids) to the source names it may see, replacing Default.
	Channels map[string][]string `yaml:"channels"`
	// Groups maps an ACL group, as listed in sources' acl, to its members:
	// user ids (Slack "U0123ABCD", Teams "29:1..." as activities carry them)
	// and conversation ids. Chunks of a source with an acl are shown only
	// where one of its groups applies: a conversation's groups to every
	// answer in it, a user's groups only where the answer is theirs alone
	// (direct messages, Teams personal chats, the private /where-is list),
	// since everyone in a channel sees its answers.
	Groups map[string][]string `yaml:"groups"`
}

// AllSources is the Access entry that stands for every configured source.
const AllSources = "*"

// Defaults of the serve, slack and access sections.
const (
	DefaultListen          = "127.0.0.1:8080"
	DefaultShutdownTimeout = 25 * time.Second
	// DefaultMaxConcurrentAnswers: on 2 cores with Weaviate on the same
	// machine, answers per second stopped growing beyond about 4 searches
	// at once while each answer got slower (docs/evaluation.md, "Load
	// test"; scripts/loadtest.sh).
	DefaultMaxConcurrentAnswers = 4
	// DefaultAnswerQueueLength only bounds the memory of waiting questions:
	// once a search has finished, admission goes by the answer deadline
	// (bot.Admission). 40 refused 48% of the replies to 50 askers on 2
	// cores although every question would have been answered in time; with
	// 100, none (answer p95 11.3 s; docs/evaluation.md, "Load test").
	DefaultAnswerQueueLength = 100
	// DefaultAnswerQueueWait leaves a search that starts at the end of the
	// wait 10 s of DefaultAnswerTimeout.
	DefaultAnswerQueueWait = 20 * time.Second
	DefaultSlackAPIURL     = "https://slack.com/api/"
	DefaultBotTokenEnv     = "RAGBOT_SLACK_BOT_TOKEN"
	DefaultAppTokenEnv     = "RAGBOT_SLACK_APP_TOKEN"
	DefaultSigningEnv      = "RAGBOT_SLACK_SIGNING_SECRET"
	// DefaultSlashCommand is the Slack command answered with a list; the
	// Slack surface uses it when its Config leaves Command empty.
	DefaultSlashCommand = "/where-is"
)

func (c *Config) applyChatDefaults() {
	s := &c.Serve
	s.Listen = cmp.Or(s.Listen, DefaultListen)
	s.ShutdownTimeout = cmp.Or(s.ShutdownTimeout, DefaultShutdownTimeout)
	s.MaxConcurrentAnswers = cmp.Or(s.MaxConcurrentAnswers, DefaultMaxConcurrentAnswers)
	s.AnswerQueueLength = cmp.Or(s.AnswerQueueLength, DefaultAnswerQueueLength)
	s.AnswerQueueWait = cmp.Or(s.AnswerQueueWait, DefaultAnswerQueueWait)
	k := &c.Slack
	k.Mode = cmp.Or(k.Mode, SlackSocket)
	k.APIURL = cmp.Or(k.APIURL, DefaultSlackAPIURL)
	k.BotTokenEnv = cmp.Or(k.BotTokenEnv, DefaultBotTokenEnv)
	k.AppTokenEnv = cmp.Or(k.AppTokenEnv, DefaultAppTokenEnv)
	k.SigningSecretEnv = cmp.Or(k.SigningSecretEnv, DefaultSigningEnv)
	k.Command = cmp.Or(k.Command, DefaultSlashCommand)
	k.AnswerTimeout = cmp.Or(k.AnswerTimeout, DefaultAnswerTimeout)
	if c.Access.Default == nil {
		c.Access.Default = []string{AllSources}
	}
}

// envName is what a POSIX shell accepts as a variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// slashCommand is what Slack accepts as a command: "/" and up to 31 lower-case
// letters, digits, "-" or "_" (api.slack.com/interactivity/slash-commands).
var slashCommand = regexp.MustCompile(`^/[a-z0-9_-]{1,31}$`)

func (v *validator) chat() {
	s := v.c.Serve
	if _, port, err := net.SplitHostPort(s.Listen); err != nil || port == "" {
		v.bad("serve.listen", "must be host:port, e.g. 127.0.0.1:8080 or :8080, got %q", s.Listen)
	}
	if s.ShutdownTimeout <= 0 {
		v.bad("serve.shutdown_timeout", "must be positive, got %s", s.ShutdownTimeout)
	}
	if s.MaxConcurrentAnswers < 1 {
		v.bad("serve.max_concurrent_answers", "must be at least 1, got %d", s.MaxConcurrentAnswers)
	}
	if s.AnswerQueueLength < 1 {
		v.bad("serve.answer_queue_length", "must be at least 1, got %d", s.AnswerQueueLength)
	}
	k := v.c.Slack
	if s.AnswerQueueWait <= 0 || s.AnswerQueueWait >= k.AnswerTimeout {
		v.bad("serve.answer_queue_wait", "must be positive and shorter than slack.answer_timeout (%s), got %s", k.AnswerTimeout, s.AnswerQueueWait)
	}
	if t := v.c.Teams; t.Enabled() && s.AnswerQueueWait > 0 && s.AnswerQueueWait >= t.AnswerTimeout {
		v.bad("serve.answer_queue_wait", "must be shorter than teams.answer_timeout (%s), got %s", t.AnswerTimeout, s.AnswerQueueWait)
	}
	if k.Mode != SlackSocket && k.Mode != SlackHTTP {
		v.bad("slack.mode", "got %q, want socket or http", k.Mode)
	}
	v.httpURL("slack.api_url", k.APIURL)
	for _, f := range []struct{ path, name string }{
		{"slack.bot_token_env", k.BotTokenEnv}, {"slack.app_token_env", k.AppTokenEnv}, {"slack.signing_secret_env", k.SigningSecretEnv},
	} {
		if !envName.MatchString(f.name) {
			v.bad(f.path, "must be an environment variable name, got %q", f.name)
		}
	}
	if !slashCommand.MatchString(k.Command) {
		v.bad("slack.command", `must be "/" and up to 31 lower-case letters, digits, - or _, got %q`, k.Command)
	}
	if t := k.AnswerTimeout; t <= 0 || t > 30*time.Minute {
		v.bad("slack.answer_timeout", "must be between 0 and 30m (the life of a response_url), got %s", t)
	}
	// A token that is set but malformed is reported here, so that `ragbot
	// validate` catches it; a missing one only matters to `ragbot serve`
	// (see SlackSecrets). A disabled Slack bot reads no token.
	if v.c.SlackEnabled() {
		v.errs = append(v.errs, v.c.slackTokenProblems(false)...)
	}
	v.access()
}

func (v *validator) access() {
	a := v.c.Access
	check := func(path string, names []string) {
		for i, n := range names {
			if n == AllSources {
				continue
			}
			if _, ok := v.c.SourceNamed(n); !ok {
				v.bad(fmt.Sprintf("%s[%d]", path, i), "%q is not the name of a configured source (or %q for all)", n, AllSources)
			}
		}
	}
	check("access.default", a.Default)
	for _, ch := range slices.Sorted(maps.Keys(a.Channels)) {
		if ch == "" || strings.ContainsAny(ch, " #") {
			v.bad("access.channels", "key %q is not a channel id (e.g. C0123ABCD; names and #channel are not accepted)", ch)
		}
		check("access.channels."+ch, a.Channels[ch])
	}
	used := map[string]bool{}
	for _, src := range v.c.Sources {
		for _, g := range src.ACL {
			used[g] = true
		}
	}
	for _, g := range slices.Sorted(maps.Keys(a.Groups)) {
		if !used[g] {
			v.bad("access.groups."+g, "no source lists this group in its acl")
		}
		for i, m := range a.Groups[g] {
			if m == "" || strings.ContainsAny(m, " #@") {
				v.bad(fmt.Sprintf("access.groups.%s[%d]", g, i), "%q is not a user or conversation id (e.g. U0123ABCD or C0123ABCD; names, #channel and @user are not accepted)", m)
			}
		}
	}
}

// AccessFor returns the names of the sources that channel may see: its entry
// in access.channels, else access.default, with "*" expanded to every
// configured source. An empty result means the channel may see nothing.
func (c *Config) AccessFor(channel string) []string {
	names, ok := c.Access.Channels[channel]
	if !ok {
		names = c.Access.Default
	}
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range names {
		if n != AllSources {
			add(n)
			continue
		}
		for _, s := range c.Sources {
			add(s.Name)
		}
	}
	return out
}

// APIBase is APIURL ending in "/", as slack-go wants it: it appends the
// method names (OptionAPIURL).
func (s Slack) APIBase() string { return strings.TrimSuffix(s.APIURL, "/") + "/" }
