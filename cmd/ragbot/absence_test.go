package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// absentNames are product and technology names that testdata/rank (its
// repository and OpenAPI spec) never mentions, each as a chat user types it
// and as it is usually written. The first five are the issue's.
var absentNames = [][2]string{
	{"rabbitmq", "RabbitMQ"}, {"mongodb", "MongoDB"}, {"ldap", "LDAP"}, {"elasticsearch", "Elasticsearch"}, {"terraform", "Terraform"},
	{"redis", "Redis"}, {"postgres", "Postgres"}, {"kubernetes", "Kubernetes"}, {"grafana", "Grafana"}, {"datadog", "Datadog"},
	{"pagerduty", "PagerDuty"}, {"jenkins", "Jenkins"}, {"nginx", "NGINX"}, {"memcached", "Memcached"}, {"cassandra", "Cassandra"},
	{"splunk", "Splunk"}, {"okta", "Okta"}, {"keycloak", "Keycloak"}, {"bigquery", "BigQuery"}, {"dynamodb", "DynamoDB"},
	{"graphql", "GraphQL"}, {"protobuf", "Protobuf"}, {"ansible", "Ansible"}, {"twilio", "Twilio"}, {"sendgrid", "SendGrid"},
}

// absentTemplates are the questions asked about each name: the rest of
// each is everyday English or words the fixture holds.
var absentTemplates = []string{
	"where do we send alerts to %s?",
	"how do we store orders in %s",
	"where is the %s client configured?",
	"%s integration?",
}

// indexRank indexes testdata/rank (a git repository and an OpenAPI spec)
// into a fresh collection with `ragbot index` and returns the config.
func indexRank(t *testing.T) string {
	t.Helper()
	repo, _ := gitRepo(t, readTree(t, filepath.Join(rankDir, "repo")))
	spec, err := filepath.Abs(filepath.Join(rankDir, "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := writeRankConfig(t, repo, spec)
	t.Cleanup(func() { dropCollection(t, cfg) })
	if code, _, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	return cfg
}

// TestAbsentNames is the case table: a name no chunk of the
// searched sources holds makes the answer "no coverage" naming it, in
// lower case as written, whatever the template; everyday questions are
// still answered; a typo of a frequent term is corrected and answered
// "not sure"; a question about a missing name and something present lists
// the closest matches for the rest. Then the same without the sources'
// vocabularies (an index made before them): names are still refused, from
// the document frequencies the search looks up.
func TestAbsentNames(t *testing.T) {
	cfg := indexRank(t)
	a, err := openApp(context.Background(), commonFlags{config: cfg}, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	asker, _ := a.pipeline(context.Background())
	ask := func(t *testing.T, q string) retrieval.Answer {
		t.Helper()
		ans, err := asker.Ask(context.Background(), retrieval.Request{Question: q})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		return ans
	}
	checkNames := func(t *testing.T) {
		for i, pair := range absentNames {
			for _, name := range pair {
				q := fmt.Sprintf(absentTemplates[i%len(absentTemplates)], name)
				ans := ask(t, q)
				if ans.Coverage != retrieval.NoCoverage || !strings.EqualFold(ans.Missing, name) {
					t.Errorf("%q: %s, missing %q; want no_coverage, missing %q (explain: %+v)", q, ans.Coverage, ans.Missing, name, ans.Evidence)
				}
			}
		}
	}
	t.Run("case table", checkNames)

	// Everyday words never refuse: the fixture's questions in other words
	// than its code's (testdata/rank/questions.jsonl R13-R17) are answered.
	t.Run("everyday questions", func(t *testing.T) {
		for _, q := range []string{
			"how long do we wait between payment retries?",
			"how is an email body built from a template?",
			"where do we refund the customer when an order is cancelled?",
			"how do I rotate the webhook signing secret?",
			"what are the API rate limits?",
		} {
			if ans := ask(t, q); ans.Coverage == retrieval.NoCoverage || ans.DidYouMean != "" {
				t.Errorf("%q: %s (missing %q, did you mean %q), want an answer", q, ans.Coverage, ans.Missing, ans.DidYouMean)
			}
		}
	})

	// Misspelt words of asking, as chat types them, refuse nothing.
	t.Run("misspelt asking words", func(t *testing.T) {
		for _, q := range []string{"wher is the retry logic for payments", "whre do we refund the customer", "hwo is teh email body built"} {
			if ans := ask(t, q); ans.Coverage == retrieval.NoCoverage {
				t.Errorf("%q: no_coverage, missing %q; want an answer", q, ans.Missing)
			}
		}
	})

	t.Run("typo", func(t *testing.T) {
		for _, q := range []string{"where is the retyr logic", "where is the Retyr logic for payments?"} {
			ans := ask(t, q)
			if ans.Coverage != retrieval.NotSure || ans.DidYouMean != "retry" || len(ans.Snippets) == 0 {
				t.Errorf("%q: %s, did you mean %q, %d snippets; want not_sure, \"retry\" and the closest matches", q, ans.Coverage, ans.DidYouMean, len(ans.Snippets))
			}
			if !strings.Contains(ans.Snippets[0].Path+ans.Snippets[0].Text, "etr") {
				t.Errorf("%q: first match %s does not mention retries", q, ans.Snippets[0].Label())
			}
		}
	})

	// Go's names for a method, as panics, pprof and goroutine traces print
	// them, find the method; a method the type lacks is still missing.
	t.Run("Go method names", func(t *testing.T) {
		for _, q := range []string{
			"where is orders.(*Service).Create",
			"where is (*Service).Create defined?",
			"orders.Service.Create",
			"github.com/acme/shop/orders.(*Service).Create(0xc000132000, {0x7f2c, 0xc0001}, 0x1f4)",
		} {
			ans := ask(t, q)
			if ans.Coverage == retrieval.NoCoverage || len(ans.Snippets) == 0 || ans.Snippets[0].Symbol != "Service.Create" {
				first := ""
				if len(ans.Snippets) > 0 {
					first = ans.Snippets[0].Label()
				}
				t.Errorf("%q: %s, missing %q, first %q; want orders/service.go Service.Create first", q, ans.Coverage, ans.Missing, first)
			}
		}
		if ans := ask(t, "where is orders.(*Service).Refundify"); ans.Coverage != retrieval.NoCoverage || ans.Missing != "orders.Service.Refundify" {
			t.Errorf("orders.(*Service).Refundify: %s, missing %q; want no_coverage naming it", ans.Coverage, ans.Missing)
		}
	})

	// A pasted trace names the runtime's and libraries' frames beside the
	// asker's, at absolute paths: the asker's own frame is found and ranked
	// first, in any case; a trace that names nothing indexed is refused.
	t.Run("pasted traces", func(t *testing.T) {
		goTrace := `panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x6b2f1a]

goroutine 42 [running]:
github.com/acme/shop/orders.(*Service).Create(0xc000132000, {0x7f2c, 0xc0001}, {0xc00001a0c0, 0x8}, 0x1f4)
	/home/ci/work/shop/orders/service.go:47 +0x3a
net/http.HandlerFunc.ServeHTTP(0xc0000a2000, {0x8a1e40, 0xc0001c4000}, 0xc0001b6000)
	/usr/local/go/src/net/http/server.go:2220 +0x29
net/http.(*conn).serve(0xc0001a4000, {0x8a2f88, 0xc00009c0f0})
	/usr/local/go/src/net/http/server.go:2092 +0x5f4
created by net/http.(*Server).Serve in goroutine 1
	/usr/local/go/src/net/http/server.go:3360 +0x485`
		pyTrace := `Traceback (most recent call last):
  File "/srv/shop/app.py", line 88, in handle
    notifier.send(user.email, "Welcome", body)
  File "/srv/shop/notify/email.py", line 26, in send
    smtp.sendmail(self.sender, [to], msg)
  File "/usr/lib/python3.11/smtplib.py", line 887, in sendmail
    raise SMTPRecipientsRefused(senderrs)
smtplib.SMTPRecipientsRefused: {'bob@example.org': (550, b'no such user')}`
		for q, want := range map[string]string{
			goTrace:                  "orders/service.go",
			strings.ToLower(goTrace): "orders/service.go",
			"why does it crash at /home/ci/work/shop/orders/service.go:47": "orders/service.go",
			pyTrace:                  "notify/email.py",
			strings.ToLower(pyTrace): "notify/email.py",
		} {
			ans := ask(t, q)
			if ans.Coverage == retrieval.NoCoverage || len(ans.Snippets) == 0 || ans.Snippets[0].Path != want {
				first := ""
				if len(ans.Snippets) > 0 {
					first = ans.Snippets[0].Label()
				}
				t.Errorf("%.60q…: %s, missing %q, first %q; want %s first", q, ans.Coverage, ans.Missing, first, want)
			}
		}
		// Traces of other codebases: one naming nothing indexed, and one
		// whose frames' names the fixture has (as a test holding a sample
		// trace would) at files it has not.
		for _, other := range []string{
			"goroutine 1 [running]:\ngithub.com/other/thing/ledger.(*Book).Post(0xc0000a0000)\n\t/home/ci/thing/ledger/book.go:12 +0x1d",
			"goroutine 7 [running]:\ngithub.com/other/shop/orders.(*Service).Create(0xc0000a0000)\n\t/home/ci/other/orders/create.go:12 +0x1d\n" +
				"net/http.HandlerFunc.ServeHTTP(0x0)\n\t/usr/local/go/src/net/http/server.go:2220 +0x29",
		} {
			if ans := ask(t, other); ans.Coverage != retrieval.NoCoverage || !strings.HasPrefix(ans.Missing, "/home/ci/") {
				t.Errorf("a trace of another codebase: %s, missing %q; want no_coverage naming its first file", ans.Coverage, ans.Missing)
			}
		}
	})

	t.Run("one of two names missing", func(t *testing.T) {
		ans := ask(t, "where does the billing retry publish to rabbitmq?")
		if ans.Coverage != retrieval.NoCoverage || ans.Missing != "rabbitmq" || ans.ClosestFor != "billing retry publish" || len(ans.Snippets) == 0 {
			t.Fatalf("%s, missing %q, closest for %q, %d snippets; want no_coverage, rabbitmq, \"billing retry publish\" and matches",
				ans.Coverage, ans.Missing, ans.ClosestFor, len(ans.Snippets))
		}
		if p := ans.Snippets[0].Path; p != "billing/retry.go" {
			t.Errorf("closest match %s, want billing/retry.go", p)
		}
		// Nothing else to search for: no list.
		if ans := ask(t, "what is rabbitmq?"); ans.Coverage != retrieval.NoCoverage || ans.ClosestFor != "" || len(ans.Snippets) != 0 {
			t.Errorf("what is rabbitmq?: %s, closest for %q, %d snippets; want no_coverage alone", ans.Coverage, ans.ClosestFor, len(ans.Snippets))
		}
	})

	// An index made before vocabularies: the names are found missing from
	// the document frequencies instead; typos are no longer corrected.
	t.Run("without vocabularies", func(t *testing.T) {
		for _, src := range []string{"repo:shop", "openapi:shop-api"} {
			deleteVocabulary(t, cfg, src)
		}
		a.store.InvalidateCounts()
		if abs, err := asker.Absence(context.Background(), retrieval.Request{Question: "rabbitmq"}); err != nil || abs.Vocabulary {
			t.Fatalf("Absence without vocabularies: %+v, %v; want Vocabulary false", abs, err)
		}
		checkNames(t)
		if ans := ask(t, "where is the retyr logic"); ans.DidYouMean != "" || ans.Evidence.Vocabulary {
			t.Errorf("retyr without vocabularies: did you mean %q (vocabulary %v); want no correction", ans.DidYouMean, ans.Evidence.Vocabulary)
		}
	})
}

// deleteVocabulary deletes the stored vocabulary of source (branch main
// for a repo:, none otherwise) over Weaviate's REST API.
func deleteVocabulary(t *testing.T, cfg, source string) {
	t.Helper()
	c, err := loadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	branch := ""
	if strings.HasPrefix(source, "repo:") {
		branch = "main"
	}
	id := (&retrieval.SourceVocabulary{Source: source, Branch: branch}).ID()
	req, _ := http.NewRequest(http.MethodDelete, weaviatetest.URL(t)+"/v1/objects/"+c.Weaviate.Collection+"SourceVocabulary/"+id, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete the vocabulary of %s: %v %v", source, resp, err)
	}
	resp.Body.Close()
}

// TestAskAbsentSurfaces runs `ragbot ask` on the indexed fixture: the text
// and the --json forms of a missing name with the closest matches for the
// rest of the question, and of a typo.
func TestAskAbsentSurfaces(t *testing.T) {
	cfg := indexRank(t)
	type answerJSON struct {
		Coverage   string              `json:"coverage"`
		Confidence string              `json:"confidence"`
		Missing    string              `json:"missing"`
		ClosestFor string              `json:"closest_for"`
		DidYouMean string              `json:"did_you_mean"`
		Snippets   []retrieval.Snippet `json:"snippets"`
	}
	askJSON := func(q string) answerJSON {
		t.Helper()
		code, out, errOut := ragbot(t, "ask", "--config", cfg, "--json", q)
		if code != 0 {
			t.Fatalf("ask --json %q: exit %d\n%s", q, code, errOut)
		}
		var a answerJSON
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("ask --json %q: %v\n%s", q, err, out)
		}
		return a
	}
	askText := func(q string) string {
		t.Helper()
		code, out, errOut := ragbot(t, "ask", "--config", cfg, q)
		if code != 0 {
			t.Fatalf("ask %q: exit %d\n%s", q, code, errOut)
		}
		return out
	}

	const missingQ = "where does the billing retry publish to RabbitMQ?"
	j := askJSON(missingQ)
	if j.Coverage != "no_coverage" || j.Confidence != "none" || j.Missing != "RabbitMQ" || j.ClosestFor != "billing retry publish" || len(j.Snippets) == 0 {
		t.Errorf("ask --json %q: %+v; want no_coverage, missing RabbitMQ, closest_for \"billing retry publish\", snippets", missingQ, j)
	}
	text := askText(missingQ)
	for _, want := range []string{
		`No coverage in the indexed sources for "` + missingQ + `".`,
		`Nothing indexed mentions "RabbitMQ": check the spelling, or that the source holding it is indexed (ragbot index).`,
		`The closest matches for "billing retry publish":`,
		"[1] billing/retry.go:",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("ask %q: no line %q in:\n%s", missingQ, want, text)
		}
	}

	const typoQ = "where is the retyr logic"
	j = askJSON(typoQ)
	if j.Coverage != "not_sure" || j.DidYouMean != "retry" || len(j.Snippets) == 0 {
		t.Errorf("ask --json %q: %+v; want not_sure, did_you_mean retry, snippets", typoQ, j)
	}
	text = askText(typoQ)
	for _, want := range []string{"Did you mean “retry”? The matches are for the question with it.", "Not sure: nothing indexed clearly answers this."} {
		if !strings.Contains(text, want) {
			t.Errorf("ask %q: no line %q in:\n%s", typoQ, want, text)
		}
	}
}
