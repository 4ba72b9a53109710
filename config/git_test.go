package config_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config"
)

// TestBadGitConfigs parses each testdata/config/bad-git-*.yaml file, one
// fault per file, and checks the exact message.
func TestBadGitConfigs(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"bad-git-path-and-url.yaml", `sources[0].url: set path (a local repository) or url (a remote one), not both`},
		{"bad-git-url-credentials.yaml", `sources[0].url: must not hold credentials; put the token in the variable named by token_env`},
		{"bad-git-url-scheme.yaml", `sources[0].url: must be an https://, http://, ssh://, git@host:path or file:// URL, got "svn://svn.acme.example/payments"`},
		{"bad-git-token-env-unset.yaml", `sources[0].token_env: names RAGBOT_TEST_GIT_TOKEN, which is not set in the environment`},
		{"bad-git-token-env-ssh.yaml", `sources[0].token_env: is only used with an http(s) url; ssh uses the ssh agent's keys`},
		{"bad-git-poll-interval.yaml", `sources[0].poll_interval: must be 0 (webhooks only) or at least 10s, got 1s`},
		{"bad-git-webhook-secret-env.yaml", `sources[0].webhook_secret_env: names RAGBOT_TEST_WEBHOOK_SECRET, which is not set in the environment`},
		{"bad-git-link-preset.yaml", `sources[0].link_preset: got "sourcehut", want one of bitbucket, bitbucket-server, gitea, github, gitlab`},
		{"bad-git-link-preset-and-template.yaml", `sources[0].link_preset: set link_template or link_preset, not both`},
		{"bad-git-link-preset-no-web-url.yaml", `sources[0].link_preset: needs web_url (or an https or ssh url to derive it from)`},
		{"bad-git-link-preset-on-markdown-no-web-url.yaml", `sources[0].link_preset: needs web_url (the web page of the repository holding the folder)`},
		{"bad-git-fields-on-markdown.yaml", "sources[0].poll_interval: only git sources have poll_interval\nsources[0].webhook_secret_env: only git sources have webhook_secret_env\nsources[0].go_types: only git sources have go_types\nsources[0].scip: only git sources have scip"},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".yaml"), func(t *testing.T) {
			_, err := parseFile(t, tt.file, map[string]string{"PAYMENTS_TOKEN": "t0ken"})
			if err == nil {
				t.Fatalf("%s parsed without error, want %q", tt.file, tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("%s error mismatch (-want +got):\n%s", tt.file, diff)
			}
			if strings.Contains(err.Error(), "ghp_secret123") {
				t.Errorf("the error shows the token: %v", err)
			}
		})
	}
}

func TestGitRemoteConfig(t *testing.T) {
	env := map[string]string{"PAYMENTS_TOKEN": "ghp_payments", "PAYMENTS_WEBHOOK_SECRET": "hook-secret"}
	cfg, err := parseFile(t, "good-git-remote.yaml", env)
	if err != nil {
		t.Fatalf("good-git-remote.yaml: %v", err)
	}
	type got struct {
		URL, Links, Web string
		Poll            time.Duration
		Token, Webhook  string
		GoTypes, SCIP   bool
	}
	var gots []got
	for _, s := range cfg.Sources {
		sec := cfg.GitSecrets(s)
		gots = append(gots, got{s.URL, s.Links(), s.RepoWebURL(), s.PollInterval, sec.Token.Reveal(), sec.Webhook.Reveal(), s.ResolveGoTypes(), s.ResolveSCIP()})
	}
	want := []got{
		{"https://github.com/acme/payments.git", "https://github.com/acme/payments/blob/{commit}/{path}#L{start}-L{end}",
			"https://github.com/acme/payments", 10 * time.Minute, "ghp_payments", "hook-secret", true, true},
		{"git@gitlab.acme.example:platform/billing.git", "https://gitlab.acme.example/platform/billing/-/blob/{commit}/{path}#L{start}-{end}",
			"https://gitlab.acme.example/platform/billing", 0, "", "", false, true},
		{"", "https://gitea.acme.example/acme/tools/src/commit/{commit}/{path}#L{start}-L{end}",
			"https://gitea.acme.example/acme/tools", 0, "", "", true, false},
	}
	if diff := cmp.Diff(want, gots); diff != "" {
		t.Errorf("git sources (-want +got):\n%s", diff)
	}
	if cfg.Indexing.ReposDir != "/var/lib/ragbot/repos" {
		t.Errorf("indexing.repos_dir = %q", cfg.Indexing.ReposDir)
	}
	if s := fmt.Sprintf("%v %+v", cfg.GitSecrets(cfg.Sources[0]), cfg.Sources[0]); strings.Contains(s, "ghp_payments") || strings.Contains(s, "hook-secret") {
		t.Errorf("formatted secrets show their values: %s", s)
	}
}

// TestLinkPresets fills each preset's template as ingest does and checks
// the forge's blob URL at a commit with a line range.
func TestLinkPresets(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		preset, url, web string
		want             string
	}{
		{"github", "https://github.com/acme/shop.git", "", "https://github.com/acme/shop/blob/" + sha + "/svc/orders.go#L12-L40"},
		{"github", "git@github.com:acme/shop.git", "", "https://github.com/acme/shop/blob/" + sha + "/svc/orders.go#L12-L40"},
		{"gitlab", "ssh://git@gitlab.example.com:2222/grp/sub/shop.git", "", "https://gitlab.example.com/grp/sub/shop/-/blob/" + sha + "/svc/orders.go#L12-40"},
		{"bitbucket", "https://bitbucket.org/acme/shop.git", "", "https://bitbucket.org/acme/shop/src/" + sha + "/svc/orders.go#lines-12:40"},
		{"bitbucket-server", "https://bitbucket.acme.example/scm/shop/shop.git", "https://bitbucket.acme.example/projects/SHOP/repos/shop",
			"https://bitbucket.acme.example/projects/SHOP/repos/shop/browse/svc/orders.go?at=" + sha + "#12-40"},
		{"gitea", "https://gitea.acme.example/acme/shop.git", "", "https://gitea.acme.example/acme/shop/src/commit/" + sha + "/svc/orders.go#L12-L40"},
	}
	for _, tt := range tests {
		t.Run(tt.preset+" "+tt.url, func(t *testing.T) {
			s := config.Source{Kind: config.KindGit, URL: tt.url, Git: config.Git{LinkPreset: tt.preset, WebURL: tt.web}}
			got := strings.NewReplacer("{commit}", sha, "{path}", "svc/orders.go", "{start}", "12", "{end}", "40").Replace(s.Links())
			if got != tt.want {
				t.Errorf("link = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestMarkdownLinks checks that a markdown folder, which may lie in a git
// work tree, takes link_preset with web_url, or link_template.
func TestMarkdownLinks(t *testing.T) {
	data := []byte(`sources:
  - name: handbook
    kind: markdown
    path: docs
    link_preset: github
    web_url: https://github.com/acme/handbook/
  - name: guides
    kind: markdown
    path: docs
    link_template: "https://git.acme.example/guides/{commit}/{path}#{start}"
`)
	cfg, err := config.Parse(data, dir, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range cfg.Sources {
		got = append(got, s.Links())
	}
	want := []string{"https://github.com/acme/handbook/blob/{commit}/{path}#L{start}-L{end}",
		"https://git.acme.example/guides/{commit}/{path}#{start}"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Links (-want +got):\n%s", diff)
	}
}
