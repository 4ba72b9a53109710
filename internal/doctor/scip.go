package doctor

import (
	"cmp"
	"slices"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest/scipcalls"
)

// checkSCIP says whether the SCIP indexers that resolve the callers of
// Python and JavaScript/TypeScript methods (ingest/scipcalls, docs/callers.md)
// are installed, when a git source uses them (scip not false). Missing,
// it warns: "who calls Type.method" is then matched by name for those
// languages, and the fix is scripts/install-scip.sh; the next `ragbot index`
// reads such sources again in full (ingest.Indexer.GitSettings). dir is
// where they are looked for ("" for scipcalls.Dir()).
func (d *Doctor) checkSCIP(cfg *config.Config, dir string) {
	if !slices.ContainsFunc(cfg.Sources, func(s config.Source) bool { return s.Kind == config.KindGit && s.ResolveSCIP() }) {
		return
	}
	dir = cmp.Or(dir, scipcalls.Dir())
	if err := scipcalls.Installed(dir); err != nil {
		d.line(checkWarn, "scip indexers", err.Error()+"; until then \"who calls Type.method\" in Python and JavaScript is matched by name",
			"bash scripts/install-scip.sh, then `ragbot index` (it reads those sources again in full); or scip: false on the source")
		return
	}
	d.line(checkOK, "scip indexers", "scip-python and scip-typescript installed in "+dir, "")
}
