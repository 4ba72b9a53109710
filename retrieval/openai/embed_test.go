package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/embedtest"
	"github.com/ragbot/ragbot/retrieval/openai"
)

// fakeEmbeddings is an OpenAI-compatible POST /v1/embeddings server: it
// checks the request as OpenAI would and answers with the offline
// embedder's vectors, listed in reverse index order (clients must sort by
// "index"). Statuses queued in fail are answered first, one per request.
type fakeEmbeddings struct {
	t      *testing.T
	model  string
	key    string // expected bearer token, "" for none
	mu     sync.Mutex
	fail   []fakeFailure
	sizes  []int // number of inputs of each successful request
	offset int   // added to each vector element, to make a "different model"
	dims   int   // when > 0, vectors are cut to this length
}

type fakeFailure struct {
	status int
	header map[string]string
	body   string
}

func (f *fakeEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	var fail *fakeFailure
	if len(f.fail) > 0 {
		fail, f.fail = &f.fail[0], f.fail[1:]
	}
	f.mu.Unlock()
	if fail != nil {
		for k, v := range fail.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(fail.status)
		fmt.Fprint(w, fail.body)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	if got, want := r.Header.Get("Authorization"), bearer(f.key); got != want {
		http.Error(w, `{"error":{"message":"Incorrect API key provided: `+strings.TrimPrefix(got, "Bearer ")+`","type":"invalid_request_error","code":"invalid_api_key"}}`, http.StatusUnauthorized)
		return
	}
	var req struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Dimensions int      `json:"dimensions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != f.model || len(req.Input) == 0 {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	vecs, _ := embed.NewOffline().Embed(r.Context(), req.Input)
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	resp := struct {
		Object string         `json:"object"`
		Data   []item         `json:"data"`
		Model  string         `json:"model"`
		Usage  map[string]int `json:"usage"`
	}{Object: "list", Model: req.Model, Usage: map[string]int{"prompt_tokens": 1, "total_tokens": 1}}
	for i := len(vecs) - 1; i >= 0; i-- {
		v := vecs[i]
		for j := range v {
			v[j] += float32(f.offset)
		}
		if f.dims > 0 {
			v = v[:f.dims]
		}
		resp.Data = append(resp.Data, item{Object: "embedding", Index: i, Embedding: v})
	}
	f.mu.Lock()
	f.sizes = append(f.sizes, len(req.Input))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func bearer(key string) string {
	if key == "" {
		return ""
	}
	return "Bearer " + key
}

// newOpenAI starts a fake server and a client for it with waits recorded,
// not slept.
func newOpenAI(t *testing.T, fake *fakeEmbeddings, cfg openai.EmbedderConfig) (*openai.Embedder, *[]time.Duration) {
	t.Helper()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cfg.BaseURL, cfg.Model = srv.URL+"/v1", fake.model
	e, err := openai.NewEmbedder(context.Background(), cfg)
	if err != nil {
		t.Fatalf("NewEmbedder: %v", err)
	}
	var waits []time.Duration
	var mu sync.Mutex
	openai.SetOpenAISleep(e, func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return ctx.Err()
	})
	return e, &waits
}

func TestOpenAIEmbedder(t *testing.T) {
	fake := &fakeEmbeddings{t: t, model: "text-embedding-3-small", key: "sk-test-0123456789abcdef"} // gitleaks:allow (fake)
	e, _ := newOpenAI(t, fake, openai.EmbedderConfig{APIKey: fake.key, BatchSize: 2})
	if got, want := e.Name(), "openai:text-embedding-3-small:384"; got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
	embedtest.TestEmbedder(t, e)
}

func TestOpenAIBatches(t *testing.T) {
	fake := &fakeEmbeddings{t: t, model: "nomic-embed-text"}
	e, _ := newOpenAI(t, fake, openai.EmbedderConfig{BatchSize: 32})
	texts := make([]string, 70)
	for i := range texts {
		texts[i] = fmt.Sprintf("text number %d", i)
	}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := embed.NewOffline().Embed(context.Background(), texts)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	// The first request is NewEmbedder's dimension probe.
	if diff := cmp.Diff([]int{1, 32, 32, 6}, fake.sizes); diff != "" {
		t.Errorf("request sizes (-want +got):\n%s", diff)
	}
}

func TestOpenAIRetries(t *testing.T) {
	date := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name      string
		fail      []fakeFailure
		wantWaits []time.Duration
		wantErr   string // "" for success
	}{
		{"429 then ok, Retry-After seconds",
			[]fakeFailure{{429, map[string]string{"Retry-After": "2"}, `{"error":{"message":"Rate limit reached","type":"requests"}}`}},
			[]time.Duration{2 * time.Second}, ""},
		{"429 with retry-after-ms",
			[]fakeFailure{{429, map[string]string{"Retry-After-Ms": "250"}, `{"error":{"message":"slow down"}}`}},
			[]time.Duration{250 * time.Millisecond}, ""},
		{"503 twice without Retry-After: exponential backoff",
			[]fakeFailure{{503, nil, "upstream unavailable"}, {503, nil, "upstream unavailable"}},
			[]time.Duration{500 * time.Millisecond, time.Second}, ""},
		{"Retry-After as an HTTP date",
			[]fakeFailure{{503, map[string]string{"Retry-After": date}, ""}},
			nil /* checked below: about 90s */, ""},
		{"400 is final",
			[]fakeFailure{{400, nil, `{"error":{"message":"input is too long","type":"invalid_request_error"}}`}},
			nil, "status 400 Bad Request: input is too long"},
		{"500 until the retries run out",
			[]fakeFailure{{500, nil, "boom"}, {500, nil, "boom"}, {500, nil, "boom"}},
			[]time.Duration{500 * time.Millisecond, time.Second}, "status 500 Internal Server Error: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeEmbeddings{t: t, model: "m"}
			e, waits := newOpenAI(t, fake, openai.EmbedderConfig{Dimensions: 384, MaxRetries: 2})
			fake.fail = tt.fail
			vs, err := e.Embed(context.Background(), []string{"a", "b"})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Embed: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Embed error = %v, want it to contain %q", err, tt.wantErr)
			case tt.wantErr == "" && len(vs) != 2:
				t.Fatalf("got %d vectors, want 2", len(vs))
			}
			if tt.name == "Retry-After as an HTTP date" {
				if len(*waits) != 1 || (*waits)[0] < 80*time.Second || (*waits)[0] > 91*time.Second {
					t.Errorf("waits = %v, want one of about 90s", *waits)
				}
				return
			}
			if diff := cmp.Diff(tt.wantWaits, *waits); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenAICanceledWhileWaiting(t *testing.T) {
	fake := &fakeEmbeddings{t: t, model: "m"}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	e, err := openai.NewEmbedder(context.Background(), openai.EmbedderConfig{BaseURL: srv.URL + "/v1", Model: "m", Dimensions: 384})
	if err != nil {
		t.Fatal(err)
	}
	fake.fail = []fakeFailure{{429, map[string]string{"Retry-After": "3600"}, ""}}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := e.Embed(ctx, []string{"a"}); err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("Embed error = %v, want the deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Embed took %s; the wait must end with the context", d)
	}
}

func TestOpenAIWrongDimensions(t *testing.T) {
	fake := &fakeEmbeddings{t: t, model: "m", dims: 100}
	e, _ := newOpenAI(t, fake, openai.EmbedderConfig{})
	if e.Dim() != 100 {
		t.Fatalf("Dim() = %d, want 100 (learned from the probe)", e.Dim())
	}
	fake.dims = 50 // the server changed model under us
	if _, err := e.Embed(context.Background(), []string{"a"}); err == nil || !strings.Contains(err.Error(), "got 50 dimensions, want 100") {
		t.Errorf("Embed error = %v, want a dimension mismatch", err)
	}
}

// TestOpenAIKeyNeverInErrors fails requests in every way the client reports
// and checks that the API key, whole or in part, is in no error (after
// alertmanager's AssertNotifyLeaksNoSecret).
func TestOpenAIKeyNeverInErrors(t *testing.T) {
	const key = "sk-proj-SECRETSECRET0123456789abcdefXYZ" // gitleaks:allow (fake)
	// masked is how OpenAI quotes a wrong key back.
	masked := key[:8] + "****" + key[len(key)-8:]
	tests := []struct {
		name string
		fail []fakeFailure
	}{
		{"401 quoting the key", []fakeFailure{{401, nil, `{"error":{"message":"Incorrect API key provided: ` + key + `","code":"invalid_api_key"}}`}}},
		{"401 quoting a masked key", []fakeFailure{{401, nil, `{"error":{"message":"Incorrect API key provided: ` + masked + `"}}`}}},
		{"plain body echoing the key", []fakeFailure{{403, nil, "forbidden for Bearer " + key}}},
		{"5xx until the retries run out", []fakeFailure{{502, nil, "bad gateway " + key}, {502, nil, "bad gateway " + key}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeEmbeddings{t: t, model: "m", key: key}
			e, _ := newOpenAI(t, fake, openai.EmbedderConfig{APIKey: key, MaxRetries: 1})
			fake.fail = tt.fail
			_, err := e.Embed(context.Background(), []string{"a"})
			if err == nil {
				t.Fatal("Embed succeeded, want an error")
			}
			checkNoSecret(t, err.Error(), key)
		})
	}
	t.Run("wrong key at construction", func(t *testing.T) {
		fake := &fakeEmbeddings{t: t, model: "m", key: "sk-the-right-one-000000000000"}
		srv := httptest.NewServer(fake)
		defer srv.Close()
		_, err := openai.NewEmbedder(context.Background(), openai.EmbedderConfig{BaseURL: srv.URL + "/v1", Model: "m", APIKey: key})
		if err == nil {
			t.Fatal("NewEmbedder succeeded with a wrong key")
		}
		checkNoSecret(t, err.Error(), key)
	})
	t.Run("unreachable server", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		_, err := openai.NewEmbedder(context.Background(), openai.EmbedderConfig{BaseURL: srv.URL + "/v1", Model: "m", APIKey: key, MaxRetries: -1})
		if err == nil {
			t.Fatal("NewEmbedder succeeded against a closed server")
		}
		checkNoSecret(t, err.Error(), key)
	})
}

func checkNoSecret(t *testing.T, msg, key string) {
	t.Helper()
	for _, part := range []string{key, key[:8], key[len(key)-8:]} {
		if strings.Contains(msg, part) {
			t.Errorf("error %q contains the API key (%q)", msg, part)
		}
	}
	if !strings.Contains(msg, "openai embedder") {
		t.Errorf("error %q does not say which client failed", msg)
	}
}

func TestOpenAIConfigErrors(t *testing.T) {
	tests := []struct {
		cfg  openai.EmbedderConfig
		want string
	}{
		{openai.EmbedderConfig{BaseURL: "api.openai.com/v1", Model: "m"}, `base url "api.openai.com/v1": want an absolute http(s) URL`},
		{openai.EmbedderConfig{BaseURL: "ftp://x/v1", Model: "m"}, "want an absolute http(s) URL"},
		{openai.EmbedderConfig{BaseURL: "http://localhost:1/v1"}, "model must be set"},
	}
	for _, tt := range tests {
		_, err := openai.NewEmbedder(context.Background(), tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewEmbedder(%+v) error = %v, want %q", tt.cfg, err, tt.want)
		}
	}
}
