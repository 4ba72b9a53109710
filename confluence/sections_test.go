package confluence_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/confluence"
)

// A sectionCase is a storage-format body and the sections SplitStorage
// makes of it, each rendered as its Symbol, a newline, then its Content.
type sectionCase struct {
	name    string
	storage string
	want    []string
}

func runSectionCases(t *testing.T, doc confluence.Doc, tests []sectionCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range doc.SplitStorage(tt.storage) {
				got = append(got, c.Symbol+"\n"+c.Content)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("sections (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSplitStorageHeadingsInMacros: a heading inside an expand, a panel
// (info, note, warning, tip, panel) or a layout cell starts a section like
// any other (Atlassian docs, 'Confluence Storage Format': these macros keep
// a rich-text body, which is page content). Only headings inside lists and
// table cells stay in their section.
func TestSplitStorageHeadingsInMacros(t *testing.T) {
	macro := func(name, title, body string) string {
		p := ""
		if title != "" {
			p = `<ac:parameter ac:name="title">` + title + `</ac:parameter>`
		}
		return `<ac:structured-macro ac:name="` + name + `" ac:schema-version="1">` + p + `<ac:rich-text-body>` + body + `</ac:rich-text-body></ac:structured-macro>`
	}
	tests := []sectionCase{
		{
			name:    "a heading inside an expand",
			storage: `<h2>Deploy</h2><p>Run the pipeline.</p>` + macro("expand", "Details", `<h2>Rollback</h2><p>Undo the rollout.</p>`),
			want: []string{
				"Runbook > Deploy\n## Deploy\n\nRun the pipeline.\n\nDetails",
				"Runbook > Rollback\n## Rollback\n\nUndo the rollout.",
			},
		},
		{
			name:    "text before the heading stays with the expand's title",
			storage: `<h1>Setup</h1>` + macro("expand", "Advanced", `<p>Only for admins.</p><h2>Proxy</h2><p>Set HTTPS_PROXY.</p>`),
			want: []string{
				"Runbook > Setup\n# Setup\n\nAdvanced\n\nOnly for admins.",
				"Runbook > Setup > Proxy\n## Proxy\n\nSet HTTPS_PROXY.",
			},
		},
		{
			name:    "an untitled info panel led by a heading: the label goes on its text",
			storage: `<p>Intro.</p>` + macro("info", "", `<h2>Caveats</h2><p>Staging only.</p>`),
			want: []string{
				"Runbook\nIntro.",
				"Runbook > Caveats\n## Caveats\n\nInfo: Staging only.",
			},
		},
		{
			name:    "headings in panel, warning and tip macros",
			storage: macro("panel", "Contacts", `<h3>Primary</h3><p>Ann</p>`) + macro("warning", "", `<h2>Danger</h2><p>No force-push.</p>`) + macro("tip", "", `<p>Lead.</p><h2>Shortcuts</h2><p>Use make.</p>`),
			want: []string{
				"Runbook\nContacts",
				"Runbook > Primary\n### Primary\n\nAnn",
				"Runbook > Danger\n## Danger\n\nWarning: No force-push.\n\nTip: Lead.",
				"Runbook > Shortcuts\n## Shortcuts\n\nUse make.",
			},
		},
		{
			name: "an expand inside a layout cell",
			storage: `<ac:layout><ac:layout-section ac:type="two_equal"><ac:layout-cell><h2>Left</h2><p>l</p></ac:layout-cell><ac:layout-cell>` +
				macro("expand", "More", `<h2>Inner</h2><p>x</p>`) + `</ac:layout-cell></ac:layout-section></ac:layout>`,
			want: []string{
				"Runbook > Left\n## Left\n\nl\n\nMore",
				"Runbook > Inner\n## Inner\n\nx",
			},
		},
		{
			name:    "a heading in an expand inside a list item or a table cell does not split",
			storage: `<h2>Steps</h2><ul><li>` + macro("expand", "", `<h2>Sub</h2><p>a</p>`) + `</li></ul><table><tbody><tr><td>` + macro("note", "", `<h2>Cell</h2>`) + `</td></tr></tbody></table>`,
			want: []string{
				"Runbook > Steps\n## Steps\n\n- Sub\n  a\n\nNote Cell",
			},
		},
	}
	runSectionCases(t, confluence.Doc{Title: "Runbook", Path: "OPS/Runbook"}, tests)
}
