// Package weaviatetest gives tests a real Weaviate: the server that .ci/run
// started (RAGBOT_TEST_WEAVIATE_URL, with its API key in
// RAGBOT_TEST_WEAVIATE_API_KEY when it is locked), or one weaviate-server per
// test package started by TestMain (locked, as weaviatelocal starts every
// server), and a fresh collection per test.
//
// A locked server is reached through a loopback proxy that adds the key to
// every request: URL returns the proxy, so a test that writes its own
// config or client needs no key; Direct returns the server itself and its
// key, for tests of authentication.
package weaviatetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatelocal"
)

// url is the server of this test binary as tests reach it ("" when none
// could be had): the server, or the proxy in front of a locked one; direct
// and key are the server itself and its API key ("" when it is anonymous).
var (
	url     string
	whyNone string
	direct  string
	key     string
)

// Main runs m with a Weaviate available, then stops the server it started.
// Use it as `func TestMain(m *testing.M) { weaviatetest.Main(m) }`. Without a
// weaviate-server binary, tests that need one skip locally and fail on CI
// (CI=true), so a missing install step cannot pass unnoticed.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if u := os.Getenv("RAGBOT_TEST_WEAVIATE_URL"); u != "" {
		direct, key = strings.TrimRight(u, "/"), os.Getenv("RAGBOT_TEST_WEAVIATE_API_KEY")
		stop, err := useServer()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer stop()
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "ragbot-weaviate-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := weaviatelocal.Start(ctx, weaviatelocal.Options{DataDir: dir, Logger: logger})
	if err != nil {
		whyNone = err.Error()
	} else {
		defer srv.Stop(context.Background())
		direct, key = srv.URL, srv.APIKey
		stop, err := useServer()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer stop()
	}
	return m.Run()
}

// useServer sets url to direct, or, when the server wants a key, to a
// proxy that adds it; stop closes the proxy.
func useServer() (stop func(), err error) {
	if key == "" {
		url = direct
		return func() {}, nil
	}
	target, err := neturl.Parse(direct)
	if err != nil {
		return nil, fmt.Errorf("RAGBOT_TEST_WEAVIATE_URL %q: %w", direct, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("weaviatetest proxy: %w", err)
	}
	srv := &http.Server{Handler: keyProxy(target.Host)}
	go srv.Serve(l) // exits when stop closes the server
	url = "http://" + l.Addr().String()
	return func() { srv.Close() }, nil
}

// keyProxy forwards each request to host with the API key added (unless
// the request carries credentials of its own). It reads the request body
// whole before sending it on: httputil.ReverseProxy streaming it broke
// some chunked Weaviate responses here ("use of closed network
// connection" on the upstream read).
func keyProxy(host string) http.Handler {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "weaviatetest proxy: "+err.Error(), http.StatusBadGateway)
			return
		}
		out, err := http.NewRequestWithContext(r.Context(), r.Method, "http://"+host+r.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			http.Error(w, "weaviatetest proxy: "+err.Error(), http.StatusBadGateway)
			return
		}
		out.Header = r.Header.Clone()
		if out.Header.Get("Authorization") == "" {
			out.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := transport.RoundTrip(out)
		if err != nil {
			http.Error(w, "weaviatetest proxy: "+err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	})
}

// Direct returns the Weaviate itself, not the proxy URL may return, and
// the API key it wants ("" for an anonymous server), skipping the test
// (failing it on CI) when there is none.
func Direct(t testing.TB) (baseURL, apiKey string) {
	t.Helper()
	URL(t)
	return direct, key
}

// URL returns the Weaviate base URL, skipping the test (failing it on CI)
// when there is none.
func URL(t testing.TB) string {
	t.Helper()
	if url == "" {
		msg := "no Weaviate for this test: " + whyNone
		if whyNone == "" {
			msg = "no Weaviate: call weaviatetest.Main from TestMain"
		}
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return url
}

// NewStore opens a store on a collection unique to this test, dropped when
// the test ends.
func NewStore(t testing.TB, embedder string) *weaviate.Store {
	t.Helper()
	ctx := context.Background()
	store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{
		URL: URL(t), ChunkClass: ClassName(), Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}, embedder)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() {
		if err := store.Drop(context.Background()); err != nil {
			t.Errorf("drop test collection: %v", err)
		}
	})
	return store
}

// ClassName returns a fresh collection name, "T" plus 16 hex digits.
func ClassName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "T" + hex.EncodeToString(b[:])
}
