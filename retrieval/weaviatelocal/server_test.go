package weaviatelocal

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// needBinary skips locally and fails on CI when weaviate-server is missing.
func needBinary(t *testing.T) {
	t.Helper()
	if _, err := FindBinary(""); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

func TestStartStopRestartKeepsData(t *testing.T) {
	needBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	free, err := pickPorts(0)
	if err != nil {
		t.Fatal(err)
	}
	port := free[0] // a fixed port for the data dir, as the embedded default uses
	if _, err := pickPorts(port); err != nil {
		t.Skipf("ports %d..%d not all free: %v", port, port+5, err)
	}
	srv, err := Start(ctx, Options{DataDir: dir, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	if !Ready(ctx, srv.URL) {
		t.Fatalf("%s not ready after Start returned", srv.URL)
	}
	// A class written before the restart is there after it.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/schema",
		strings.NewReader(`{"class":"Persisted","vectorizer":"none"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("create class: %v %v", err, resp)
	}
	resp.Body.Close()
	if err := srv.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.Done():
	default:
		t.Fatal("Stop returned before the process exited")
	}
	if Ready(ctx, srv.URL) {
		t.Fatal("still answering after Stop")
	}

	srv2, err := Start(ctx, Options{DataDir: dir, Port: port})
	if err != nil {
		t.Fatalf("restart on the same data dir: %v", err)
	}
	defer srv2.Stop(context.Background())
	if srv2.APIKey != srv.APIKey {
		t.Error("restart on the same data dir made a new API key")
	}
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, srv2.URL+"/v1/schema/Persisted", nil)
	req.Header.Set("Authorization", "Bearer "+srv2.APIKey)
	resp, err = http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("class after restart: %v %v", err, resp)
	}
	if resp != nil {
		resp.Body.Close()
	}

	// The same ports again while it runs: a clear error, not a crash later.
	_, err = Start(ctx, Options{DataDir: t.TempDir(), Port: port})
	if err == nil || !strings.Contains(err.Error(), "is in use") {
		t.Errorf("second server on busy ports: got %v, want a port-in-use error", err)
	}
}

func TestFindBinaryExplicitMissing(t *testing.T) {
	_, err := FindBinary("/nonexistent/weaviate-server")
	if err == nil || !strings.Contains(err.Error(), `weaviate.binary "/nonexistent/weaviate-server"`) ||
		!strings.Contains(err.Error(), "scripts/install-weaviate.sh") {
		t.Errorf("got %v, want an error naming weaviate.binary and the install script", err)
	}
}

func TestStartReportsEarlyExit(t *testing.T) {
	// A "server" that exits at once: Start must say so with the log, not wait out the timeout.
	bin := t.TempDir() + "/fake-weaviate"
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho 'fatal: cannot bind' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{Binary: bin, DataDir: t.TempDir(), ReadyTimeout: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") || !strings.Contains(err.Error(), "fatal: cannot bind") {
		t.Errorf("got %v, want the early exit with the log's tail", err)
	}
	if errors.Is(err, ErrNoBinary) {
		t.Error("explicit binary reported as missing")
	}
}
