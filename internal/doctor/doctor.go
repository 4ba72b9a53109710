package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/humanize"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed/transformer"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatelocal"
)

// Check outcomes, the first word of each doctor line.
const (
	checkOK   = "ok"
	checkWarn = "warn"
	checkFail = "FAIL"
	checkSkip = "skip"
)

// Sources gives a configured source as an index run reads it;
// sources.Sources implements it for the loaded config.
type Sources interface {
	// Repo is the git source src: its repository, branches and remote.
	Repo(src config.Source) ingest.Repo
	// Dir is the markdown folder source src.
	Dir(src config.Source) ingest.DirSource
	// Pages is the page set of a confluence or html source; an error when
	// it cannot be made (a missing token, which CheckAll reports itself).
	Pages(src config.Source) (ingest.PageSet, error)
}

// Deployment is what the checks read: the loaded config and what
// cmd/ragbot made of it, as an index run or serve would.
type Deployment struct {
	Config  *config.Config
	Sources Sources
	// Embedder is the configured embedder; nil when EmbedderErr says why
	// it could not be made. Family is the key of its coverage thresholds
	// in retrieval.thresholds besides its name (the codesearch encoder's
	// "codesearch-v1", whatever the model's hash in its name).
	Embedder    retrieval.Embedder
	EmbedderErr error
	Family      string
	// RedactorErr is the error of building indexing.redact's detector
	// (an unknown rule id), or nil.
	RedactorErr error
	// Settings computes the settings fingerprints an index run stores with
	// a source (ingest.Indexer.GitSettings and the like) from the config's
	// embedder, chunker sizes and redactor; nil when Embedder is nil or
	// RedactorErr is set.
	Settings *ingest.Indexer
	// SlackAPIURL is slack.api_url ending in "/", where auth.test is sent.
	SlackAPIURL string
	// SCIPDir is where the SCIP indexers are looked for; "" for
	// scipcalls.Dir() (RAGBOT_SCIP_DIR, else the user's cache).
	SCIPDir string
}

// Doctor runs the checks of `ragbot doctor` and prints one line each:
// "ok", "warn", "FAIL" or "skip", what was checked, what was found and,
// for warn and FAIL, the fix. It changes nothing and starts no Weaviate.
type Doctor struct {
	out    io.Writer
	failed int
	http   *http.Client
	base   string // Weaviate URL
	apiKey string
}

// New returns a Doctor printing to out whose network checks (Weaviate's
// REST API, Confluence, Slack, the Bot Framework token) each time out
// after timeout.
func New(out io.Writer, timeout time.Duration) *Doctor {
	return &Doctor{out: out, http: &http.Client{Timeout: timeout}}
}

// line prints one check: its outcome, what was checked, what was found
// and, for warn and FAIL, the fix.
func (d *Doctor) line(status, name, msg, fix string) {
	if status == checkFail {
		d.failed++
	}
	s := fmt.Sprintf("%-4s %s: %s", status, name, msg)
	if fix != "" {
		s += "; fix: " + fix
	}
	fmt.Fprintln(d.out, s)
}

// CheckConfig prints the line of the config check of the file at path:
// ok with its number of sources when err (config loading's) is nil, else
// FAIL with err. It reports whether the config loaded.
func (d *Doctor) CheckConfig(path string, cfg *config.Config, err error) bool {
	if err != nil {
		d.line(checkFail, "config", err.Error(), "edit "+path+" (`ragbot validate` lists every problem)")
		return false
	}
	d.line(checkOK, "config", fmt.Sprintf("%s valid, %d sources", path, len(cfg.Sources)), "")
	return true
}

// Err is the command's error: nil when no check failed, else "N checks
// failed".
func (d *Doctor) Err() error {
	if d.failed > 0 {
		return errors.New(humanize.Plural(d.failed, "check") + " failed")
	}
	return nil
}

// CheckAll checks dep: Weaviate reachable and its version, its nodes, the
// shards of both collections writable, the collection's embedder against
// the configured one, each git source readable and its index at the
// branch head, each source indexed with the config's settings, the
// coverage thresholds for the embedder, the webhook secrets, redaction, the SCIP indexers,
// and the credentials of Confluence, Slack and Teams.
func (d *Doctor) CheckAll(ctx context.Context, dep Deployment) {
	cfg, eps := dep.Config, dep.Config.Weaviate.Endpoints()
	d.base, d.apiKey = fmt.Sprintf("http://127.0.0.1:%d", cfg.Weaviate.Port), os.Getenv(cfg.Weaviate.APIKeyEnv)
	if len(eps) == 0 {
		// The local server's key; none when it never ran (checkWeaviate says so).
		d.apiKey, _ = weaviatelocal.ReadAPIKey(cfg.Resolve(cfg.Weaviate.DataDir))
	} else { // weaviate.urls: the first node that answers (else the first), as ragbot's client does
		first := max(slices.IndexFunc(eps, func(u string) bool { return weaviatelocal.Ready(ctx, u) }), 0)
		d.base = strings.TrimRight(eps[first], "/")
	}
	emb := dep.Embedder
	if err := dep.EmbedderErr; err != nil {
		fix := "fix the embedder section of the config"
		if errors.Is(err, transformer.ErrNotInstalled) { // the error names the install command
			fix = "install the model as the message says, then run ragbot doctor again"
		}
		d.line(checkFail, "embedder", err.Error(), fix)
	}
	if d.checkWeaviate(ctx) {
		d.checkAnonymous(ctx, len(eps) == 0)
		chunk, state := weaviate.ClassNames(cfg.Weaviate.Collection)
		d.checkNodes(ctx, chunk)
		d.checkShards(ctx, chunk, state)
		if emb != nil {
			d.checkCollectionEmbedder(ctx, chunk, emb)
		}
		d.checkVectorIndex(ctx, chunk, flatChunkLimit)
		d.checkGit(ctx, cfg, dep.Sources, state, dep.Settings)
		d.checkSettings(ctx, cfg, dep.Sources, state, dep.Settings)
		d.checkVocabularies(ctx, cfg, state, weaviate.VocabularyClassName(cfg.Weaviate.Collection))
	} else {
		d.line(checkSkip, "index", "shards, embedder and git index state need Weaviate", "")
	}
	if emb != nil {
		d.checkThresholds(cfg, emb, dep.Family)
	}
	d.checkWebhookSecrets(cfg)
	d.checkRedaction(cfg, dep.RedactorErr)
	d.checkSCIP(scipSources(ctx, cfg, dep.Sources), dep.SCIPDir)
	d.checkConfluence(ctx, cfg)
	d.checkSlack(ctx, cfg, dep.SlackAPIURL)
	d.checkTeams(ctx, cfg)
}
