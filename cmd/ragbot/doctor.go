package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	slackgo "github.com/slack-go/slack"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatelocal"
)

const doctorAbout = `ragbot doctor checks a deployment and explains what is wrong, one line per
check with the fix: the config; Weaviate reachable, its version, every shard
of the collections writable (not READONLY); the collection's embedder equal
to the configured one; coverage thresholds for the embedder in use; each git
source readable and its index at the branch head; each indexed source made
with the config's settings (redaction, chunking, embedder, filters, links:
what the next index run compares before re-reading); each indexed source's
vocabulary current (absent names and typos); Confluence credentials
(one authenticated call); Slack's auth.test and the Teams token when their
credentials are in the environment; the webhook secrets. It starts no
Weaviate and changes nothing.

Lines start with ok, warn, FAIL or skip. Exit code 0 when nothing failed
(warnings allowed), 1 otherwise.

Example:
  ragbot doctor --config ragbot.yaml`

// Check outcomes, the first word of each doctor line.
const (
	checkOK   = "ok"
	checkWarn = "warn"
	checkFail = "FAIL"
	checkSkip = "skip"
)

// doctor runs the checks and prints one line each.
type doctor struct {
	out    io.Writer
	failed int
	http   *http.Client
	base   string // Weaviate URL
	apiKey string
}

// line prints one check: its outcome, what was checked, what was found
// and, for warn and FAIL, the fix.
func (d *doctor) line(status, name, msg, fix string) {
	if status == checkFail {
		d.failed++
	}
	s := fmt.Sprintf("%-4s %s: %s", status, name, msg)
	if fix != "" {
		s += "; fix: " + fix
	}
	fmt.Fprintln(d.out, s)
}

func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cf commonFlags
	fs := newFlags("doctor", doctorAbout, stderr)
	cf.register(fs)
	timeout := fs.Duration("timeout", 10*time.Second, "timeout of each network check")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: doctor takes no arguments, got %q", errUsage, fs.Args())
	}
	d := &doctor{out: stdout, http: &http.Client{Timeout: *timeout}}
	cfg, err := loadConfig(cf.config)
	if err != nil {
		d.line(checkFail, "config", err.Error(), "edit "+cf.config+" (`ragbot validate` lists every problem)")
		return d.result()
	}
	d.line(checkOK, "config", fmt.Sprintf("%s valid, %d sources", cf.config, len(cfg.Sources)), "")
	d.checkAll(ctx, cfg)
	return d.result()
}

// result is the command's error: nil when no check failed.
func (d *doctor) result() error {
	if d.failed > 0 {
		return errors.New(plural(d.failed, "check") + " failed")
	}
	return nil
}

func (d *doctor) checkAll(ctx context.Context, cfg *config.Config) {
	d.base = fmt.Sprintf("http://127.0.0.1:%d", cfg.Weaviate.Port)
	if eps := cfg.Weaviate.Endpoints(); len(eps) > 0 {
		d.base = strings.TrimRight(eps[0], "/")
		for _, u := range eps { // weaviate.urls: the first node that answers, as ragbot's client does
			if weaviatelocal.Ready(ctx, u) {
				d.base = strings.TrimRight(u, "/")
				break
			}
		}
	}
	d.apiKey = envValue(cfg.Weaviate.APIKeyEnv)
	emb, embErr := newEmbedder(ctx, cfg, io.Discard)
	if embErr != nil {
		d.line(checkFail, "embedder", embErr.Error(), "fix the embedder section of the config")
	}
	if d.checkWeaviate(ctx) {
		chunk, state := weaviate.ClassNames(cfg.Weaviate.Collection)
		d.checkNodes(ctx, chunk)
		d.checkShards(ctx, chunk, state)
		if emb != nil {
			d.checkCollectionEmbedder(ctx, chunk, emb)
		}
		fp := settingsIndexer(cfg, emb)
		d.checkGit(ctx, cfg, state, fp)
		d.checkSettings(ctx, cfg, state, fp)
		d.checkVocabularies(ctx, cfg, state, weaviate.VocabularyClassName(cfg.Weaviate.Collection))
	} else {
		d.line(checkSkip, "index", "shards, embedder and git index state need Weaviate", "")
	}
	if emb != nil {
		d.checkThresholds(cfg, emb)
	}
	d.checkWebhookSecrets(cfg)
	d.checkRedaction(cfg)
	d.checkConfluence(ctx, cfg)
	d.checkSlack(ctx, cfg)
	d.checkTeams(ctx, cfg)
}

// getJSON GETs path of the Weaviate REST API into v; status is the HTTP
// status (0 when the request failed).
func (d *doctor) getJSON(ctx context.Context, path string, v any) (status int, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+path, nil)
	if err != nil {
		return 0, err
	}
	if d.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+d.apiKey)
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, fmt.Errorf("GET %s: %s: %s", path, resp.Status, strings.TrimSpace(string(body)))
	}
	return resp.StatusCode, json.Unmarshal(body, v)
}

// checkWeaviate reads GET /v1/meta (Weaviate REST API, "meta"): reachable
// and its version.
func (d *doctor) checkWeaviate(ctx context.Context) bool {
	var meta struct {
		Version string `json:"version"`
	}
	status, err := d.getJSON(ctx, "/v1/meta", &meta)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		d.line(checkFail, "weaviate", fmt.Sprintf("%s refused the API key: %v", d.base, err), "set the variable weaviate.api_key_env names to a key Weaviate accepts")
		return false
	case err != nil:
		d.line(checkFail, "weaviate", fmt.Sprintf("cannot reach %s: %v", d.base, err),
			"start it (`systemctl start weaviate`, or `ragbot weaviate` for the local one) or correct weaviate.url")
		return false
	}
	d.line(checkOK, "weaviate", fmt.Sprintf("%s reachable, version %s", d.base, meta.Version), "")
	return true
}

// checkNodes reads the cluster's view of the chunk collection
// (weaviate.CheckHealth, the check behind answers' partial-index warning and
// /readyz): every node HEALTHY, and every shard with a replica on a live
// node.
func (d *doctor) checkNodes(ctx context.Context, class string) {
	h := weaviate.CheckHealth(ctx, d.http, d.base, d.apiKey, class)
	switch {
	case errors.Is(h.Err, weaviate.ErrNoCollection): // checkShards says so
	case h.Err != nil:
		d.line(checkWarn, "weaviate nodes", h.Err.Error(), "check Weaviate's log")
	case h.Unavailable > 0:
		d.line(checkFail, "weaviate nodes", fmt.Sprintf("%d of %d shards of %s have no live replica (nodes down: %s; replication factor %d): answers miss that part of the index",
			h.Unavailable, h.Shards, class, strings.Join(h.Down, ", "), h.Factor),
			"restart the nodes that are down; to survive a node loss, index with weaviate.replication_factor 3 (docs/deploy.md, Scaling out)")
	case len(h.Down) > 0:
		d.line(checkWarn, "weaviate nodes", fmt.Sprintf("%d of %d nodes down (%s); every shard of %s still has a live replica (replication factor %d)",
			len(h.Down), len(h.Nodes), strings.Join(h.Down, ", "), class, h.Factor), "restart the nodes that are down")
	default:
		d.line(checkOK, "weaviate nodes", fmt.Sprintf("%d of %d HEALTHY; %d shards of %s, replication factor %d", len(h.Nodes), len(h.Nodes), h.Shards, class, h.Factor), "")
	}
}

// checkShards reads GET /v1/schema/{class}/shards of both collections: a
// shard that is not READY refuses writes. Weaviate marks every shard
// READONLY when its disk use passes DISK_USE_READONLY_PERCENTAGE (default
// 90; Weaviate docs, "Environment variables") and never clears it itself.
func (d *doctor) checkShards(ctx context.Context, classes ...string) {
	for _, class := range classes {
		var shards []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		}
		status, err := d.getJSON(ctx, "/v1/schema/"+url.PathEscape(class)+"/shards", &shards)
		switch {
		case status == http.StatusNotFound:
			d.line(checkFail, "collection "+class, "does not exist: nothing is indexed", "run `ragbot index`")
			continue
		case err != nil:
			d.line(checkFail, "collection "+class, "cannot read its shards: "+err.Error(), "check Weaviate's log")
			continue
		}
		bad := 0
		for _, s := range shards {
			switch s.Status {
			case "READY":
			case "READONLY":
				bad++
				d.line(checkFail, "shard "+class+"/"+s.Name, "READONLY: index runs and votes cannot write (Weaviate sets this when the disk is nearly full)",
					fmt.Sprintf(`free disk space on Weaviate's data dir, then curl -X PUT %s/v1/schema/%s/shards/%s -H 'Content-Type: application/json' -d '{"status":"READY"}'`,
						d.base, class, s.Name))
			default:
				bad++
				d.line(checkWarn, "shard "+class+"/"+s.Name, "status "+s.Status, "wait for it to finish loading or indexing; check Weaviate's log if it stays")
			}
		}
		if bad == 0 {
			d.line(checkOK, "collection "+class, fmt.Sprintf("%d shards READY", len(shards)), "")
		}
	}
}

// checkCollectionEmbedder compares the embedders recorded in the chunk
// collection's description (see weaviate.OpenStore) with the configured ones.
func (d *doctor) checkCollectionEmbedder(ctx context.Context, class string, emb retrieval.Embedder) {
	var c struct {
		Description string `json:"description"`
	}
	if _, err := d.getJSON(ctx, "/v1/schema/"+url.PathEscape(class), &c); err != nil {
		return // reported by checkShards
	}
	lex, sem := weaviate.DescribedEmbedders(c.Description)
	wantLex, wantSem := lexicalOf(emb).Name(), ""
	if p, ok := emb.(retrieval.Pair); ok {
		wantSem = p.Semantic.Name()
	}
	switch {
	case lex != wantLex:
		d.line(checkFail, "embedder", fmt.Sprintf("collection %s was embedded by %q, the config's embedder is %q", class, lex, wantLex),
			"run `ragbot index` (re-embeds a static or codesearch model) or `ragbot index --recreate`, or restore the old embedder settings")
	case sem != wantSem:
		d.line(checkFail, "embedder", fmt.Sprintf("collection %s holds semantic vectors of %q, the config's semantic embedder is %q", class, orNone(sem), orNone(wantSem)),
			"run `ragbot index` (re-embeds the semantic vectors)")
	default:
		d.line(checkOK, "embedder", fmt.Sprintf("collection %s matches the configured embedder %s", class, emb.Name()), "")
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// checkThresholds looks for a retrieval.thresholds entry for the embedder
// in use (its name or family). Without one the built-in defaults apply,
// which were calibrated for the offline embedders: a warning for them, a
// failure for an API embedder, whose similarities are on another scale.
func (d *doctor) checkThresholds(cfg *config.Config, emb retrieval.Embedder) {
	name, family := emb.Name(), embedderFamily(emb)
	_, byName := cfg.Retrieval.Thresholds[name]
	_, byFamily := cfg.Retrieval.Thresholds[family]
	switch {
	case byName:
		d.line(checkOK, "thresholds", "retrieval.thresholds has an entry for "+name, "")
		return
	case byFamily:
		d.line(checkOK, "thresholds", "retrieval.thresholds has an entry for the family "+family, "")
		return
	}
	offline := cfg.Embedder.Kind != "openai" && (cfg.Embedder.Semantic == nil || cfg.Embedder.Semantic.Kind != "openai")
	fix := fmt.Sprintf("run `ragbot eval` on questions that include unanswerable ones and copy the calibrated thresholds it prints to retrieval.thresholds.%q", family)
	if offline {
		d.line(checkWarn, "thresholds", "no retrieval.thresholds entry for "+name+": using built-in defaults", fix)
		return
	}
	d.line(checkFail, "thresholds", "no retrieval.thresholds entry for the API embedder "+name+": the built-in defaults are not on its scale", fix)
}

// storedState is what doctor reads of a SourceState object.
type storedState struct {
	CommitSHA string `json:"commit_sha"`
	Settings  string `json:"settings"`
	LastError string `json:"last_error"`
}

// readState reads the SourceState of source's branch ("" for a source
// without branches) over REST (GET /v1/objects/{class}/{id}); status is the
// HTTP status (404 when the source was never indexed).
func (d *doctor) readState(ctx context.Context, stateClass, source, branch string) (storedState, int, error) {
	var obj struct {
		Properties storedState `json:"properties"`
	}
	id := retrieval.SourceState{Source: source, Branch: branch}.ID()
	status, err := d.getJSON(ctx, "/v1/objects/"+url.PathEscape(stateClass)+"/"+id, &obj)
	return obj.Properties, status, err
}

// settingsIndexer is an Indexer holding what the settings fingerprints
// (ingest.Indexer.GitSettings and the like) read from the config: the
// embedder, the code chunker's sizes and the redactor. It is nil when emb is
// nil or the redactor cannot be built (both reported by their own checks).
func settingsIndexer(cfg *config.Config, emb retrieval.Embedder) *ingest.Indexer {
	if emb == nil {
		return nil
	}
	red, err := newRedactor(cfg)
	if err != nil {
		return nil
	}
	return &ingest.Indexer{Embedder: emb, Code: codeOptions(cfg), Redact: red}
}

// settingsDrift is the warning of a source whose index was made with other
// settings than the config's.
const settingsDrift = "indexed with other settings than the config (e.g. redaction, chunking, embedder); answers show what the last run stored until `ragbot index` re-reads it"

// checkGit reads each git source's branch heads and compares them with
// the commits its index holds (the SourceState objects, read over REST),
// and, with fp, the settings fingerprint stored with them with the
// config's (ingest.Indexer.GitSettings).
func (d *doctor) checkGit(ctx context.Context, cfg *config.Config, stateClass string, fp *ingest.Indexer) {
	for _, s := range cfg.Sources {
		if s.Kind != config.KindGit {
			continue
		}
		r := repoOf(cfg, s)
		branches := r.Branches
		if len(branches) == 0 {
			branches = []string{""} // the checked-out branch
		}
		for _, b := range branches {
			name := "git " + s.Name
			if b != "" {
				name += "@" + b
			}
			head, branch, err := ingest.BranchHead(ctx, r.Source.Dir, b)
			if err != nil {
				fix := "check sources[].path and that this user can read the repository"
				if r.Remote != nil {
					fix = "run `ragbot index --source " + s.Name + "` to clone or fetch it, and check url and token_env"
				}
				d.line(checkFail, name, fmt.Sprintf("cannot read the repository at %s: %v", r.Source.Dir, err), fix)
				continue
			}
			st, status, err := d.readState(ctx, stateClass, s.SourceID(), branch)
			switch {
			case status == http.StatusNotFound:
				d.line(checkWarn, name, fmt.Sprintf("branch %s at %s is not indexed yet", branch, short(head)), "run `ragbot index --source "+s.Name+"` (serve indexes it at start)")
			case err != nil:
				d.line(checkFail, name, "cannot read its index state: "+err.Error(), "check Weaviate's log")
			case st.LastError != "":
				d.line(checkFail, name, fmt.Sprintf("the last index run failed: %s", st.LastError), "fix the cause, then `ragbot index --source "+s.Name+"`")
			case fp != nil && st.Settings != fp.GitSettings(r.Source):
				d.line(checkWarn, name, settingsDrift, "run `ragbot index --source "+s.Name+"`")
			case st.CommitSHA == head:
				d.line(checkOK, name, fmt.Sprintf("index at the branch head %s", short(head)), "")
			default:
				d.line(checkWarn, name, fmt.Sprintf("index at %s, branch %s at %s: behind", short(st.CommitSHA), branch, short(head)),
					"run `ragbot index --source "+s.Name+"`, or check the push webhook or poll that should have")
			}
		}
	}
}

// checkSettings compares, for each markdown, openapi, confluence and html
// source with an index state, the settings fingerprint stored by its last
// run with the config's (ingest.Indexer.DirSettings, SpecSettings,
// PageSettings). A source never indexed is left to the other checks.
func (d *doctor) checkSettings(ctx context.Context, cfg *config.Config, stateClass string, fp *ingest.Indexer) {
	if fp == nil {
		return
	}
	for _, s := range cfg.Sources {
		name := s.Kind + " " + s.Name
		var want string
		switch s.Kind {
		case config.KindMarkdown:
			want = fp.DirSettings(dirSourceOf(cfg, s))
		case config.KindOpenAPI:
			data, err := os.ReadFile(cfg.Resolve(s.Path))
			if err != nil {
				d.line(checkFail, name, "cannot read the spec file: "+err.Error(), "correct sources[].path")
				continue
			}
			want = fp.SpecSettings(ingest.SpecSource{ID: s.SourceID(), ACL: s.ACL}, data)
		case config.KindConfluence, config.KindHTML:
			set, err := pageSet(cfg, s, slog.New(slog.DiscardHandler))
			if err != nil {
				continue // checkConfluence reports missing credentials
			}
			want = fp.PageSettings(set)
		default:
			continue
		}
		st, status, err := d.readState(ctx, stateClass, s.SourceID(), "")
		switch {
		case status == http.StatusNotFound:
		case err != nil:
			d.line(checkFail, name, "cannot read its index state: "+err.Error(), "check Weaviate's log")
		case st.Settings != want:
			msg := settingsDrift
			if s.Kind == config.KindOpenAPI {
				msg = "indexed from another version of the spec file or with other settings than the config (e.g. redaction, embedder); answers show what the last run stored until `ragbot index` re-reads it"
			}
			d.line(checkWarn, name, msg, "run `ragbot index --source "+s.Name+"`")
		default:
			d.line(checkOK, name, "indexed with the config's settings", "")
		}
	}
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// checkWebhookSecrets: every source with webhook_secret_env has its secret.
func (d *doctor) checkWebhookSecrets(cfg *config.Config) {
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
func (d *doctor) checkRedaction(cfg *config.Config) {
	if !cfg.Indexing.RedactOn() {
		d.line(checkWarn, "redaction", "indexing.redact is false: secrets committed in the sources are stored and posted to chat as they are",
			"remove indexing.redact: false (list test fixtures in indexing.redact_allow_paths instead), then `ragbot index`")
		return
	}
	if _, err := newRedactor(cfg); err != nil {
		d.line(checkFail, "redaction", err.Error(), "fix the indexing section of the config")
		return
	}
	d.line(checkOK, "redaction", fmt.Sprintf("secrets replaced at index time (%d rules off, %d paths allowed)",
		len(cfg.Indexing.RedactDisableRules), len(cfg.Indexing.RedactAllowPaths)), "")
}

// checkConfluence makes one authenticated call per confluence source: GET
// rest/api/user/current (Confluence REST API v1, "Get current user"; Cloud
// and Data Center).
func (d *doctor) checkConfluence(ctx context.Context, cfg *config.Config) {
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
func (d *doctor) checkSlack(ctx context.Context, cfg *config.Config) {
	if !cfg.SlackEnabled() {
		return
	}
	token := envValue(cfg.Slack.BotTokenEnv)
	if token == "" {
		d.line(checkSkip, "slack", cfg.Slack.BotTokenEnv+" not set here; auth.test skipped", "")
		return
	}
	api := slackgo.New(token, slackgo.OptionAPIURL(slackAPIURL(cfg)), slackgo.OptionHTTPClient(d.http))
	auth, err := api.AuthTestContext(ctx)
	if err != nil {
		d.line(checkFail, "slack", "auth.test: "+err.Error(), "reinstall the app and export its Bot User OAuth Token (xoxb-) in "+cfg.Slack.BotTokenEnv)
		return
	}
	d.line(checkOK, "slack", fmt.Sprintf("auth.test: bot %s in team %s", auth.User, auth.Team), "")
	if cfg.Slack.Mode == config.SlackSocket && envValue(cfg.Slack.AppTokenEnv) == "" {
		d.line(checkFail, "slack", cfg.Slack.AppTokenEnv+" not set: Socket Mode needs the app-level token (xapp-)", "export it, or set slack.mode: http")
	}
}

// checkTeams gets a Bot Framework token with the app's client credentials
// (learn.microsoft.com, "Authentication with the Bot Connector API"), when
// Teams is configured and its password is in the environment.
func (d *doctor) checkTeams(ctx context.Context, cfg *config.Config) {
	if !cfg.Teams.Enabled() {
		return
	}
	secret := envValue(cfg.Teams.AppPasswordEnv)
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
