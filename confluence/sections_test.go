package confluence_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/confluence"
	"github.com/ragbot/ragbot/ingest"
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
			name:    "a heading inside an expand; the title goes into its section",
			storage: `<h2>Deploy</h2><p>Run the pipeline.</p>` + macro("expand", "Details", `<h2>Rollback</h2><p>Undo the rollout.</p>`),
			want: []string{
				"Runbook > Deploy\n## Deploy\n\nRun the pipeline.",
				"Runbook > Rollback\n## Rollback\n\nDetails\n\nUndo the rollout.",
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
				"Runbook > Primary\n### Primary\n\nContacts\n\nAnn",
				"Runbook > Danger\n## Danger\n\nWarning: No force-push.\n\nTip: Lead.",
				"Runbook > Shortcuts\n## Shortcuts\n\nUse make.",
			},
		},
		{
			name: "an expand inside a layout cell",
			storage: `<ac:layout><ac:layout-section ac:type="two_equal"><ac:layout-cell><h2>Left</h2><p>l</p></ac:layout-cell><ac:layout-cell>` +
				macro("expand", "More", `<h2>Inner</h2><p>x</p>`) + `</ac:layout-cell></ac:layout-section></ac:layout>`,
			want: []string{
				"Runbook > Left\n## Left\n\nl",
				"Runbook > Inner\n## Inner\n\nMore\n\nx",
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

// TestSplitStorageMacroParameters: parameters that name what the reader
// sees stay in the text, beside their content: a code macro's title with
// its code (in a table cell too), a link's target page, blog post or
// attachment with the link's own text. Parameters that only style or
// configure (language, line numbers, colours, space keys) stay out.
func TestSplitStorageMacroParameters(t *testing.T) {
	code := func(title, body string) string {
		return `<ac:structured-macro ac:name="code" ac:schema-version="1"><ac:parameter ac:name="language">bash</ac:parameter>` +
			`<ac:parameter ac:name="title">` + title + `</ac:parameter><ac:parameter ac:name="linenumbers">true</ac:parameter>` +
			`<ac:parameter ac:name="collapse">true</ac:parameter><ac:parameter ac:name="theme">Midnight</ac:parameter>` +
			`<ac:plain-text-body><![CDATA[` + body + `]]></ac:plain-text-body></ac:structured-macro>`
	}
	tests := []sectionCase{
		{
			name:    "a link body and its target page",
			storage: `<p>Ask with the <ac:link><ri:page ri:space-key="OPS" ri:content-title="Access requests" /><ac:plain-text-link-body><![CDATA[request form]]></ac:plain-text-link-body></ac:link>.</p>`,
			want:    []string{"Doc\nAsk with the request form (Access requests)."},
		},
		{
			name:    "a rich link body, an anchor and a page",
			storage: `<p>See <ac:link ac:anchor="Rollback"><ri:page ri:content-title="Deploy runbook" /><ac:link-body>the <strong>rollback</strong> steps</ac:link-body></ac:link>.</p>`,
			want:    []string{"Doc\nSee the rollback steps (Deploy runbook)."},
		},
		{
			name:    "a body that is the page title is not repeated",
			storage: `<p>See <ac:link><ri:page ri:content-title="Deploy Runbook" /><ac:plain-text-link-body><![CDATA[deploy runbook]]></ac:plain-text-link-body></ac:link>.</p>`,
			want:    []string{"Doc\nSee deploy runbook."},
		},
		{
			name: "blog posts and attachments name their target too",
			storage: `<p><ac:link><ri:blog-post ri:content-title="Q2 incident review" ri:posting-day="2024/07/01" /><ac:plain-text-link-body><![CDATA[last review]]></ac:plain-text-link-body></ac:link>, ` +
				`<ac:link><ri:attachment ri:filename="checklist.pdf" /><ac:plain-text-link-body><![CDATA[the checklist]]></ac:plain-text-link-body></ac:link></p>`,
			want: []string{"Doc\nlast review (Q2 incident review), the checklist (checklist.pdf)"},
		},
		{
			name:    "a code title in a table cell stays with its code",
			storage: `<table><tbody><tr><th>Step</th><th>Run</th></tr><tr><td>Deploy</td><td>` + code("deploy.sh", "make deploy") + `</td></tr></tbody></table>`,
			want:    []string{"Doc\nStep: Deploy; Run: deploy.sh: make deploy"},
		},
		{
			name:    "a code title in a task stays with its code",
			storage: `<ac:task-list><ac:task><ac:task-id>1</ac:task-id><ac:task-status>incomplete</ac:task-status><ac:task-body>Run ` + code("check.sh", "make check") + `</ac:task-body></ac:task></ac:task-list>`,
			want:    []string{"Doc\n[ ] Run check.sh: make check"},
		},
		{
			name:    "the title of another plain-text macro stays with its body",
			storage: `<ac:structured-macro ac:name="noformat"><ac:parameter ac:name="title">crontab</ac:parameter><ac:parameter ac:name="nopanel">true</ac:parameter><ac:plain-text-body><![CDATA[0 3 * * * backup]]></ac:plain-text-body></ac:structured-macro>`,
			want:    []string{"Doc\ncrontab:\n```\n0 3 * * * backup\n```"},
		},
		{
			// 2 + 170 + 1 + 83 = 256 lines: windows of up to 120 lines, and
			// the code block (with its title) does not fit after the rest
			// of the rows, so it is a window of its own.
			name:    "a code title stays atop its code when the section is cut into windows",
			storage: `<h2>Inventory</h2><p>` + strings.Repeat("host<br/>", 170) + `</p>` + code("hosts.sh", strings.Repeat("ping\n", 80)+"done"),
			want: []string{
				"Doc > Inventory\n## Inventory\n\n" + strings.TrimSuffix(strings.Repeat("host\n", 118), "\n"),
				"Doc > Inventory\n## Inventory\n" + strings.TrimSuffix(strings.Repeat("host\n", 52), "\n"),
				"Doc > Inventory\n## Inventory\nhosts.sh:\n```bash\n" + strings.Repeat("ping\n", 80) + "done\n```",
			},
		},
	}
	runSectionCases(t, confluence.Doc{Title: "Doc", Path: "OPS/Doc"}, tests)
}

// TestSplitStorageUsers: a mention (ac:link > ri:user) and the profile and
// profile-picture macros show the user's display name from Doc.UserName,
// or the account id (Cloud), username or user key (Data Center) when there
// is none (Atlassian docs, 'Confluence Storage Format': User links;
// 'User Profile Macro'; 'Profile Picture Macro').
func TestSplitStorageUsers(t *testing.T) {
	names := map[confluence.User]string{
		{AccountID: "557058:ann"}:  "Ann Lee",
		{UserKey: "8a7f808a0001"}:  "Bob Stone",
		{Username: "carla.diaz"}:   "Carla Diaz",
		{AccountID: "557058:gone"}: "",
	}
	profile := func(name, param, ref string) string {
		return `<ac:structured-macro ac:name="` + name + `" ac:schema-version="1"><ac:parameter ac:name="` + param + `">` + ref + `</ac:parameter></ac:structured-macro>`
	}
	tests := []sectionCase{
		{
			name:    "a Cloud mention",
			storage: `<p>Owner: <ac:link><ri:user ri:account-id="557058:ann" /></ac:link></p>`,
			want:    []string{"Doc\nOwner: Ann Lee"},
		},
		{
			name:    "Data Center mentions by user key and by username",
			storage: `<p>Ask <ac:link><ri:user ri:userkey="8a7f808a0001" /></ac:link> or <ac:link><ri:user ri:username="carla.diaz"/></ac:link>.</p>`,
			want:    []string{"Doc\nAsk Bob Stone or Carla Diaz."},
		},
		{
			name:    "profile and profile-picture macros",
			storage: `<p>Owner: ` + profile("profile", "user", `<ri:user ri:account-id="557058:ann" />`) + `, deputy ` + profile("profile-picture", "User", `<ri:user ri:userkey="8a7f808a0001" />`) + `</p>`,
			want:    []string{"Doc\nOwner: Ann Lee, deputy Bob Stone"},
		},
		{
			name:    "a user without a name shows its id",
			storage: `<p>Was: <ac:link><ri:user ri:account-id="557058:gone" /></ac:link>, ` + profile("profile", "user", `<ri:user ri:account-id="557058:unknown"/>`) + `, <ac:link><ri:user ri:userkey="ff00"/></ac:link></p>`,
			want:    []string{"Doc\nWas: 557058:gone, 557058:unknown, ff00"},
		},
		{
			name:    "a mention with a link body shows the body",
			storage: `<p>Ping <ac:link><ri:user ri:account-id="557058:ann" /><ac:plain-text-link-body><![CDATA[the owner]]></ac:plain-text-link-body></ac:link>.</p>`,
			want:    []string{"Doc\nPing the owner."},
		},
		{
			name:    "in a table cell and a heading",
			storage: `<h2>Owners <ac:link><ri:user ri:account-id="557058:ann" /></ac:link></h2><table><tbody><tr><th>Service</th><th>Owner</th></tr><tr><td>pay</td><td>` + profile("profile", "user", `<ri:user ri:username="carla.diaz"/>`) + `</td></tr></tbody></table>`,
			want:    []string{"Doc > Owners Ann Lee\n## Owners Ann Lee\n\nService: pay; Owner: Carla Diaz"},
		},
	}
	doc := confluence.Doc{Title: "Doc", Path: "OPS/Doc", UserName: func(u confluence.User) string { return names[u] }}
	runSectionCases(t, doc, tests)
	runSectionCases(t, confluence.Doc{Title: "Doc", Path: "OPS/Doc"}, []sectionCase{{
		name:    "no UserName: ids",
		storage: `<p>Owner: <ac:link><ri:user ri:account-id="557058:ann" /></ac:link>, ` + profile("profile", "user", `<ri:user ri:username="carla.diaz"/>`) + `</p>`,
		want:    []string{"Doc\nOwner: 557058:ann, carla.diaz"},
	}})
}

// TestSplitStorageImageCaptions: an image shows its alt text (else its
// title) and its caption, which Cloud keeps in ac:caption (Atlassian docs,
// 'Confluence Storage Format': Images, ac:alt and ac:title attributes).
func TestSplitStorageImageCaptions(t *testing.T) {
	runSectionCases(t, confluence.Doc{Title: "Doc", Path: "OPS/Doc"}, []sectionCase{
		{
			name:    "alt text and caption",
			storage: `<ac:image ac:align="center" ac:alt="network diagram"><ri:attachment ri:filename="net.png" /><ac:caption><p>Traffic enters through the <strong>edge</strong> proxies</p></ac:caption></ac:image>`,
			want:    []string{"Doc\nnetwork diagram: Traffic enters through the edge proxies"},
		},
		{
			name:    "a title when there is no alt text",
			storage: `<p>See <ac:image ac:title="Failover states"><ri:url ri:value="https://example.com/states.png" /></ac:image>.</p>`,
			want:    []string{"Doc\nSee Failover states."},
		},
	})
}

// TestExportHeadingsInMacros: in an HTML export, a heading inside a
// rendered expand, panel or info macro starts a section too.
func TestExportHeadingsInMacros(t *testing.T) {
	dir := t.TempDir()
	page := `<html><head><title>OPS : Runbook</title></head><body><div id="main-content" class="wiki-content">` +
		`<h2 id="Runbook-Deploy">Deploy</h2><p>Run the pipeline.</p>` +
		`<div class="expand-container"><div class="expand-control"><span class="expand-control-icon icon">&nbsp;</span><span class="expand-control-text">Details</span></div>` +
		`<div class="expand-content"><h2 id="Runbook-Rollback">Rollback</h2><p>Undo the rollout.</p></div></div>` +
		`<div class="panel"><div class="panelHeader"><b>Contacts</b></div><div class="panelContent"><h2 id="Runbook-Owners">Owners</h2><p>Ann Lee</p></div></div>` +
		`<div class="confluence-information-macro confluence-information-macro-note"><div class="confluence-information-macro-body"><h3 id="Runbook-Caveat">Caveat</h3><p>Staging first.</p></div></div>` +
		`</div></body></html>`
	if err := os.WriteFile(filepath.Join(dir, "Runbook_1.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	src := &confluence.ExportSource{Dir: dir}
	refs, err := src.ListPages(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = src.FetchPages(t.Context(), refs, func(p ingest.Page) error {
		for _, c := range p.Sections {
			got = append(got, c.Symbol+"\n"+c.Content)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Runbook > Deploy\n## Deploy\n\nRun the pipeline.",
		"Runbook > Rollback\n## Rollback\n\nDetails\n\nUndo the rollout.",
		"Runbook > Owners\n## Owners\n\nContacts\n\nAnn Lee",
		"Runbook > Owners > Caveat\n### Caveat\n\nNote: Staging first.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
}
