package doctor

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
)

// vocabularyFix says what a source without a current vocabulary costs and
// how to get one.
const vocabularyFix = "answers check its absent names by document frequency during the search, and correct no typos"

// checkVocabularies checks that each indexed branch of a configured source
// has a vocabulary counted for its last index run (retrieval's absence
// check reads it: absent names and typos from memory). It lists the
// states over REST (GET /v1/objects?class=...) and reads each vocabulary's
// stamp (GET /v1/objects/{class}/{id}).
func (d *Doctor) checkVocabularies(ctx context.Context, cfg *config.Config, stateClass, vocabClass string) {
	configured := map[string]string{} // source id -> name
	for _, s := range cfg.Sources {
		configured[s.SourceID()] = s.Name
	}
	var list struct {
		Objects []struct {
			Properties stamp `json:"properties"`
		} `json:"objects"`
	}
	if status, err := d.getJSON(ctx, "/v1/objects?class="+url.QueryEscape(stateClass)+"&limit=10000", &list); status == http.StatusNotFound {
		d.line(checkSkip, "vocabulary", "nothing indexed yet", "") // the collection checks say so, with the fix
		return
	} else if err != nil {
		d.line(checkFail, "vocabulary", "cannot list the index states: "+err.Error(), "check Weaviate's log")
		return
	}
	current, missing := 0, 0
	for _, o := range list.Objects {
		st := o.Properties
		name, ok := configured[st.Source]
		if !ok {
			continue
		}
		var obj struct {
			Properties stamp `json:"properties"`
		}
		id := (&retrieval.SourceVocabulary{Source: st.Source, Branch: st.Branch}).ID()
		status, err := d.getJSON(ctx, "/v1/objects/"+url.PathEscape(vocabClass)+"/"+id, &obj)
		where := st.Source
		if st.Branch != "" {
			where += "@" + st.Branch
		}
		switch {
		case status == http.StatusNotFound || err == nil && !obj.Properties.same(st):
			missing++
			d.line(checkWarn, "vocabulary "+where, "no vocabulary counted for its last index run (an index made before vocabularies, or by an older ragbot); "+vocabularyFix,
				"run `ragbot index --source "+name+"`")
		case err != nil:
			d.line(checkFail, "vocabulary "+where, "cannot read its vocabulary: "+err.Error(), "check Weaviate's log")
		default:
			current++
		}
	}
	if missing == 0 && current > 0 {
		d.line(checkOK, "vocabulary", fmt.Sprintf("every indexed source and branch (%d) has the vocabulary of its last run (absent names and typos checked from memory)",
			current), "")
	}
}

// stamp is what says which index run a state or a vocabulary is of.
type stamp struct {
	Source    string `json:"source"`
	Branch    string `json:"branch"`
	CommitSHA string `json:"commit_sha"`
	IndexedAt string `json:"indexed_at"`
}

func (s stamp) same(o stamp) bool {
	a, errA := time.Parse(time.RFC3339Nano, s.IndexedAt)
	b, errB := time.Parse(time.RFC3339Nano, o.IndexedAt)
	return s.Source == o.Source && s.Branch == o.Branch && s.CommitSHA == o.CommitSHA && errA == nil && errB == nil && a.Equal(b)
}
