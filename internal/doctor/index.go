package doctor

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/humanize"
	"github.com/ragbot/ragbot/retrieval"
)

// storedState is what doctor reads of a SourceState object.
type storedState struct {
	CommitSHA string `json:"commit_sha"`
	Settings  string `json:"settings"`
	LastError string `json:"last_error"`
}

// readState reads the SourceState of source's branch ("" for a source
// without branches) over REST (GET /v1/objects/{class}/{id}); status is the
// HTTP status (404 when the source was never indexed).
func (d *Doctor) readState(ctx context.Context, stateClass, source, branch string) (storedState, int, error) {
	var obj struct {
		Properties storedState `json:"properties"`
	}
	id := retrieval.SourceState{Source: source, Branch: branch}.ID()
	status, err := d.getJSON(ctx, "/v1/objects/"+url.PathEscape(stateClass)+"/"+id, &obj)
	return obj.Properties, status, err
}

// settingsDrift is the warning of a source whose index was made with other
// settings than the config's.
const settingsDrift = "indexed with other settings than the config (e.g. redaction, chunking, embedder); answers show what the last run stored until `ragbot index` re-reads it"

// checkGit reads each git source's branch heads and compares them with
// the commits its index holds (the SourceState objects, read over REST),
// and, with fp, the settings fingerprint stored with them with the
// config's (ingest.Indexer.GitSettings).
func (d *Doctor) checkGit(ctx context.Context, cfg *config.Config, sources Sources, stateClass string, fp *ingest.Indexer) {
	for _, s := range cfg.Sources {
		if s.Kind != config.KindGit {
			continue
		}
		r := sources.Repo(s)
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
			pending, _ := ingest.PendingVectors(st.LastError)
			switch {
			case status == http.StatusNotFound:
				d.line(checkWarn, name, fmt.Sprintf("branch %s at %s is not indexed yet", branch, short(head)), "run `ragbot index --source "+s.Name+"` (serve indexes it at start)")
			case err != nil:
				d.line(checkFail, name, "cannot read its index state: "+err.Error(), "check Weaviate's log")
			case pending > 0:
				d.line(checkWarn, name, fmt.Sprintf("index at %s, %s stored without a semantic vector (the semantic embedder failed during the run): answers find them by keywords", short(st.CommitSHA), humanize.Plural(pending, "chunk")),
					"check embedder.semantic's endpoint; the next `ragbot index --source "+s.Name+"` embeds them")
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
func (d *Doctor) checkSettings(ctx context.Context, cfg *config.Config, sources Sources, stateClass string, fp *ingest.Indexer) {
	if fp == nil {
		return
	}
	for _, s := range cfg.Sources {
		name := s.Kind + " " + s.Name
		var want string
		switch s.Kind {
		case config.KindMarkdown:
			want = fp.DirSettings(sources.Dir(s))
		case config.KindOpenAPI:
			data, err := os.ReadFile(cfg.Resolve(s.Path))
			if err != nil {
				d.line(checkFail, name, "cannot read the spec file: "+err.Error(), "correct sources[].path")
				continue
			}
			want = fp.SpecSettings(ingest.SpecSource{ID: s.SourceID(), ACL: s.ACL}, data)
		case config.KindConfluence, config.KindHTML:
			set, err := sources.Pages(s)
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

func short(sha string) string { return sha[:min(7, len(sha))] }
