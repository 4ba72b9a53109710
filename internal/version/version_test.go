package version_test

import (
	"runtime/debug"
	"testing"

	"github.com/ragbot/ragbot/internal/version"
)

// TestOf: a stamped commit and version (scripts/build.sh) name the build
// however it was made; without them, the build info's vcs settings.
func TestOf(t *testing.T) {
	const sha = "a1ad3b9c1f3a5e0d4c2b1a0f9e8d7c6b5a4f3e2d"
	devel := &debug.BuildInfo{Main: debug.Module{Path: "github.com/ragbot/ragbot", Version: "(devel)"}}
	vcs := &debug.BuildInfo{Main: devel.Main, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "d5de0b2c1f3a9b8c7d6e5f4a3b2c1d0e9f8a7b6c"}, {Key: "vcs.modified", Value: "true"}}}
	released := &debug.BuildInfo{Main: debug.Module{Path: "github.com/ragbot/ragbot", Version: "v1.2.0"}}
	for _, tc := range []struct {
		name  string
		bi    *debug.BuildInfo
		stamp version.Stamp
		want  string
	}{
		{"go build -buildvcs=false", devel, version.Stamp{}, "(devel)"},
		{"go build in the work tree", vcs, version.Stamp{}, "(devel) (d5de0b2c1f3a, modified)"},
		{"go install @v1.2.0", released, version.Stamp{}, "v1.2.0"},
		{"stamped, -buildvcs=false", devel, version.Stamp{Commit: sha}, "(devel) (a1ad3b9c1f3a)"},
		{"stamped with changes", devel, version.Stamp{Commit: sha, Modified: true}, "(devel) (a1ad3b9c1f3a, modified)"},
		// The stamp is what the script saw: it replaces the vcs settings whole.
		{"stamped over vcs", vcs, version.Stamp{Commit: sha}, "(devel) (a1ad3b9c1f3a)"},
		{"stamped tag", devel, version.Stamp{Version: "v1.3.0", Commit: sha}, "v1.3.0 (a1ad3b9c1f3a)"},
		{"stamped, no build info", nil, version.Stamp{Commit: sha}, "(devel) (a1ad3b9c1f3a)"},
		{"no build info", nil, version.Stamp{}, "unknown (no build info)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := version.Of(tc.bi, tc.stamp); got != tc.want {
				t.Errorf("Of = %q, want %q", got, tc.want)
			}
		})
	}
}
