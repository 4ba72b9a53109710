package embed_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/embedtest"
)

func TestOfflineEmbedder(t *testing.T) {
	e := embed.NewOffline()
	if got, want := e.Name(), "offline-hash-v1-384"; got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
	if got, want := e.Dim(), 384; got != want {
		t.Errorf("Dim() = %d, want %d", got, want)
	}
	embedtest.TestEmbedder(t, e)
}

// TestOfflineStable pins the offline vectors: they are stored in collections
// named after OfflineName, so a change to the features, weights or hash must
// come with a new name (and this test's values).
func TestOfflineStable(t *testing.T) {
	ctx := context.Background()
	texts := []string{"findByEmail", "", "where is the retry for 503 errors?"} // "" gets the fixed empty vector
	a, err := embed.NewOffline().Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := new(embed.Offline).Embed(ctx, []string{texts[2], texts[1], texts[0]})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, [][]float32{b[2], b[1], b[0]}); diff != "" {
		t.Errorf("vectors differ between instances and batch orders (-first +second):\n%s", diff)
	}
	for i, v := range a {
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Errorf("text %q: squared norm %v, want 1", texts[i], norm)
		}
	}
	got := make([]string, len(a))
	for i, v := range a {
		got[i] = fingerprint(v)
	}
	wantFP := []string{
		"max v[232]=-0.5369, sum i*v[i]=166.7299",
		"max v[324]=-1.0000, sum i*v[i]=-325.0000",
		"max v[104]=0.4170, sum i*v[i]=51.3065",
	}
	if diff := cmp.Diff(wantFP, got); diff != "" {
		t.Errorf("offline vectors changed; bump OfflineName and update this test (-want +got):\n%s", diff)
	}
}

// fingerprint describes v by its largest element and the sum of its
// elements weighted by position, each rounded to 4 decimals.
func fingerprint(v []float32) string {
	top, sum := 0, 0.0
	for i, x := range v {
		if math.Abs(float64(x)) > math.Abs(float64(v[top])) {
			top = i
		}
		sum += float64(i+1) * float64(x)
	}
	return fmt.Sprintf("max v[%d]=%.4f, sum i*v[i]=%.4f", top, v[top], sum)
}

func TestOfflineSimilarity(t *testing.T) {
	tests := []struct {
		a, b     string
		min, max float64 // bounds of the cosine similarity
	}{
		{"findByEmail", "find_by_email", 0.9, 1.001},
		{"findByEmail", "find by email", 0.9, 1.001},
		{"find_by_email", "find by email", 0.9, 1.001},
		{"findByEmail", "render the sidebar template", -1, 0.3},
		{"find_by_email", "render the sidebar template", -1, 0.3},
		{"find by email", "render the sidebar template", -1, 0.3},
		{"SetNotifiesStage.Exec", "set notifies stage", 0.7, 1},
		{"FindUserByEmail", "find by email", 0.6, 1},
		{"notify", "notifies", 0.15, 0.8}, // shared 3-grams
		{"func (r *UserRepository) FindByEmail(ctx context.Context, email string) (*User, error)",
			"where is the user looked up by email?", 0.2, 1},
		{"func (r *UserRepository) FindByEmail(ctx context.Context, email string) (*User, error)",
			"render the sidebar template", -1, 0.3},
	}
	e := embed.NewOffline()
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%02d %s ~ %s", i, tt.a, tt.b), func(t *testing.T) {
			v, err := e.Embed(context.Background(), []string{tt.a, tt.b})
			if err != nil {
				t.Fatal(err)
			}
			got := dot(v[0], v[1])
			if got < tt.min || got > tt.max {
				t.Errorf("cosine(%q, %q) = %.3f, want in [%v, %v]", tt.a, tt.b, got, tt.min, tt.max)
			}
		})
	}
}

// dot returns the dot product of a and b, their cosine similarity when both
// have unit length.
func dot(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

// benchChunks returns n Go functions of about 40 lines each, with varied
// identifiers, doc comments and strings, like the code chunks ingest embeds.
func benchChunks(n int) []string {
	nouns := []string{"User", "Order", "Invoice", "Alert", "Silence", "Receiver", "Route", "Template", "Webhook", "Session"}
	verbs := []string{"Find", "Create", "Update", "Delete", "Notify", "Validate", "Render", "Retry", "Sync", "Expire"}
	fields := []string{"ID", "Email", "CreatedAt", "Status", "Labels", "Annotations", "Deadline", "Attempts"}
	out := make([]string, n)
	for i := range out {
		noun, verb := nouns[i%len(nouns)], verbs[(i/len(nouns))%len(verbs)]
		field := fields[i%len(fields)]
		var b strings.Builder
		fmt.Fprintf(&b, "// %s%sBy%s %s the %s whose %s matches, retrying transient\n", verb, noun, field, strings.ToLower(verb), strings.ToLower(noun), strings.ToLower(field))
		fmt.Fprintf(&b, "// errors (HTTP 429 and 503) with exponential backoff. It returns\n// ErrNotFound when no %s matches.\n", strings.ToLower(noun))
		fmt.Fprintf(&b, "func (r *%sRepository) %s%sBy%s(ctx context.Context, %s string, opts *%sOptions) (*%s, error) {\n", noun, verb, noun, field, strings.ToLower(field), verb, noun)
		fmt.Fprintf(&b, "\tif %s == \"\" {\n\t\treturn nil, fmt.Errorf(\"%s: empty %s\")\n\t}\n", strings.ToLower(field), strings.ToLower(noun), strings.ToLower(field))
		b.WriteString("\tbackoff := r.cfg.InitialBackoff\n\tvar lastErr error\n")
		b.WriteString("\tfor attempt := 0; attempt < r.cfg.MaxAttempts; attempt++ {\n")
		fmt.Fprintf(&b, "\t\trow, err := r.db.QueryRowContext(ctx, \"SELECT * FROM %ss WHERE %s = $1\", %s)\n", strings.ToLower(noun), strings.ToLower(field), strings.ToLower(field))
		b.WriteString("\t\tif err == nil {\n")
		fmt.Fprintf(&b, "\t\t\tvar out %s\n\t\t\tif err := row.Scan(&out.ID, &out.%s, &out.UpdatedAt); err != nil {\n", noun, field)
		fmt.Fprintf(&b, "\t\t\t\treturn nil, fmt.Errorf(\"%s: scan row: %%w\", err)\n\t\t\t}\n", strings.ToLower(noun))
		b.WriteString("\t\t\tr.metrics.requestsTotal.WithLabelValues(\"ok\").Inc()\n\t\t\treturn &out, nil\n\t\t}\n")
		b.WriteString("\t\tif errors.Is(err, sql.ErrNoRows) {\n\t\t\treturn nil, ErrNotFound\n\t\t}\n")
		b.WriteString("\t\tvar httpErr *HTTPError\n\t\tif !errors.As(err, &httpErr) || (httpErr.StatusCode != 429 && httpErr.StatusCode != 503) {\n")
		b.WriteString("\t\t\treturn nil, err\n\t\t}\n\t\tlastErr = err\n")
		fmt.Fprintf(&b, "\t\tr.logger.Warn(\"retrying %s lookup\", \"attempt\", attempt, \"backoff\", backoff, \"err\", err)\n", strings.ToLower(noun))
		b.WriteString("\t\tselect {\n\t\tcase <-ctx.Done():\n\t\t\treturn nil, ctx.Err()\n\t\tcase <-time.After(backoff):\n\t\t}\n")
		b.WriteString("\t\tbackoff = min(backoff*2, r.cfg.MaxBackoff)\n\t}\n")
		b.WriteString("\tr.metrics.requestsTotal.WithLabelValues(\"exhausted\").Inc()\n")
		fmt.Fprintf(&b, "\treturn nil, fmt.Errorf(\"%s: giving up after %%d attempts: %%w\", r.cfg.MaxAttempts, lastErr)\n}\n", strings.ToLower(noun))
		out[i] = b.String()
	}
	return out
}

// BenchmarkOfflineEmbed embeds batches of 256 code chunks of about 40 lines
// and reports chunks embedded per second on one goroutine.
func BenchmarkOfflineEmbed(b *testing.B) {
	chunks := benchChunks(256)
	var bytes int
	for _, c := range chunks {
		bytes += len(c)
	}
	e := embed.NewOffline()
	ctx := context.Background()
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := e.Embed(ctx, chunks); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n*len(chunks))/b.Elapsed().Seconds(), "chunks/s")
}
