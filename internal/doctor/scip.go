package doctor

import (
	"cmp"
	"context"
	"os/exec"
	"strings"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest/scipcalls"
)

// checkSCIP says whether the SCIP indexers that resolve the callers of
// Python and JavaScript/TypeScript methods (ingest/scipcalls, docs/callers.md)
// are installed, when some git sources use them: names are those sources
// (scipSources). Missing, it warns: "who calls Type.method" is then matched
// by name in them, and the fix is scripts/install-scip.sh; the next
// `ragbot index` reads such sources again in full (ingest.Indexer.GitSettings).
// dir is where they are looked for ("" for scipcalls.Dir()).
func (d *Doctor) checkSCIP(names []string, dir string) {
	if len(names) == 0 {
		return
	}
	dir = cmp.Or(dir, scipcalls.Dir())
	if err := scipcalls.Installed(dir); err != nil {
		d.line(checkWarn, "scip indexers", err.Error()+"; until then \"who calls Type.method\" in the Python and JavaScript of "+
			strings.Join(names, ", ")+" is matched by name",
			"bash scripts/install-scip.sh, then `ragbot index` (it reads those sources again in full); or scip: false on the source")
		return
	}
	d.line(checkOK, "scip indexers", "scip-python and scip-typescript installed in "+dir, "")
}

// scipSources are the names of the git sources whose SCIP resolution is on
// (scip not false) and whose checked-out commit holds a Python or
// JavaScript/TypeScript file (scipcalls.Handles; one `git ls-tree` each).
// A repository that cannot be read is left out: checkGit reports it.
func scipSources(ctx context.Context, cfg *config.Config, sources Sources) []string {
	var names []string
	for _, s := range cfg.Sources {
		if s.Kind != config.KindGit || !s.ResolveSCIP() || sources == nil {
			continue
		}
		out, err := exec.CommandContext(ctx, "git", "-C", sources.Repo(s).Source.Dir, "ls-tree", "-r", "--name-only", "HEAD").Output()
		if err != nil {
			continue
		}
		for _, p := range strings.Split(string(out), "\n") {
			if scipcalls.Handles(p) {
				names = append(names, s.Name)
				break
			}
		}
	}
	return names
}
