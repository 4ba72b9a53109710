package weaviatelocal

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// TestLockedServer: a local server refuses REST and gRPC requests that
// carry no key or a wrong one, and serves the key from its data dir.
func TestLockedServer(t *testing.T) {
	needBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	srv, err := Start(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())

	key, err := ReadAPIKey(dir)
	if err != nil || key != srv.APIKey || len(key) != 64 {
		t.Fatalf("ReadAPIKey = %q, %v; want the server's 64-hex key", key, err)
	}
	for _, name := range []string{APIKeyFile, ClusterPasswordFile} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want mode 0600", name, err, st.Mode().Perm())
		}
	}

	rest := []struct {
		name, method, path, key string
		want                    int
	}{
		{"schema without key", http.MethodGet, "/v1/schema", "", http.StatusUnauthorized},
		{"schema with a wrong key", http.MethodGet, "/v1/schema", "not-the-key", http.StatusUnauthorized},
		{"create class without key", http.MethodPost, "/v1/schema", "", http.StatusUnauthorized},
		{"meta without key", http.MethodGet, "/v1/meta", "", http.StatusUnauthorized},
		{"schema with the key", http.MethodGet, "/v1/schema", srv.APIKey, http.StatusOK},
		{"readiness probe without key", http.MethodGet, "/v1/.well-known/ready", "", http.StatusOK},
	}
	for _, tc := range rest {
		t.Run("REST "+tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(ctx, tc.method, srv.URL+tc.path, strings.NewReader(`{"class":"Sneaky"}`))
			req.Header.Set("Content-Type", "application/json")
			if tc.key != "" {
				req.Header.Set("Authorization", "Bearer "+tc.key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("%s %s: got %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
			}
		})
	}

	conn, err := grpc.NewClient(srv.GRPC, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := pb.NewWeaviateClient(conn)
	// weaviate-server v1.39.2 refuses these with codes.Unknown and
	// "extract auth: unauthorized: invalid api key": its Search handler
	// wraps the authenticator's untyped error (adapters/handlers/grpc/v1/
	// service.go), which translateTypedError does not map to
	// codes.Unauthenticated. Either is a refusal; both are accepted.
	grpcCases := []struct{ name, auth string }{
		{"no metadata", ""},
		{"wrong key", "Bearer not-the-key"},
	}
	for _, tc := range grpcCases {
		t.Run("gRPC Search "+tc.name, func(t *testing.T) {
			cctx := ctx
			if tc.auth != "" {
				cctx = metadata.AppendToOutgoingContext(ctx, "authorization", tc.auth)
			}
			_, err := client.Search(cctx, &pb.SearchRequest{Collection: "Chunk", Limit: 1})
			if !refused(err) {
				t.Errorf("Search: got %v, want Unauthenticated (or v1.39.2's Unknown \"unauthorized\")", err)
			}
		})
	}
	t.Run("gRPC Search with the key", func(t *testing.T) {
		cctx := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+srv.APIKey)
		_, err := client.Search(cctx, &pb.SearchRequest{Collection: "Chunk", Limit: 1})
		if refused(err) || status.Code(err) == codes.PermissionDenied {
			t.Errorf("Search with the key: %v", err)
		}
	})
}

// refused reports whether a gRPC error is Weaviate refusing the caller.
func refused(err error) bool {
	st := status.Convert(err)
	return st.Code() == codes.Unauthenticated ||
		(st.Code() == codes.Unknown && strings.Contains(st.Message(), "unauthorized"))
}

func TestSecretFileReusedAndTightened(t *testing.T) {
	dir := t.TempDir()
	a, err := loadCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.apiKey == a.clusterPassword || len(a.apiKey) != 64 {
		t.Fatalf("credentials %+v: want two different 64-hex secrets", a)
	}
	path := filepath.Join(dir, APIKeyFile)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := loadCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b != a {
		t.Errorf("second load made new secrets")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode after load %v, want 0600", st.Mode().Perm())
	}
	if err := os.WriteFile(path, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAPIKey(dir); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("empty key file: got %v, want an error saying it is empty", err)
	}
	if _, err := ReadAPIKey(t.TempDir()); !os.IsNotExist(err) && !strings.Contains(err.Error(), "no such file") {
		t.Errorf("no key file: got %v, want not-exist", err)
	}
}
