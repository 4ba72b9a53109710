package weaviatelocal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// APIKeyFile and ClusterPasswordFile are the names, in a local server's
// data dir (a cluster's: the parent of node1..), of the secrets that lock
// it: the API key every REST and gRPC request must carry
// (AUTHENTICATION_APIKEY_ALLOWED_KEYS) and the password of the basic auth
// between the nodes' internal data ports (CLUSTER_BASIC_AUTH_PASSWORD,
// user ClusterUser). Each is 32 random bytes in hex, written mode 0600 on
// the first start and reused by every later one.
const (
	APIKeyFile          = "ragbot-api-key"
	ClusterPasswordFile = "ragbot-cluster-password"
)

// APIKeyUser is the Weaviate user the API key belongs to
// (AUTHENTICATION_APIKEY_USERS); ClusterUser is the inter-node basic auth
// user (CLUSTER_BASIC_AUTH_USERNAME).
const (
	APIKeyUser  = "ragbot"
	ClusterUser = "ragbot-cluster"
)

// credentials are the secrets of one local server or cluster.
type credentials struct {
	apiKey          string
	clusterPassword string
}

// loadCredentials reads the API key and the cluster password from dir,
// creating either (and dir) when missing. A file readable by others is
// tightened to 0600.
func loadCredentials(dir string) (credentials, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return credentials{}, fmt.Errorf("weaviate data dir: %w", err)
	}
	key, err := secretFile(filepath.Join(dir, APIKeyFile))
	if err != nil {
		return credentials{}, err
	}
	pw, err := secretFile(filepath.Join(dir, ClusterPasswordFile))
	if err != nil {
		return credentials{}, err
	}
	return credentials{apiKey: key, clusterPassword: pw}, nil
}

// secretFile returns the secret stored at path, generating it first
// (crypto/rand, 32 bytes, hex) when the file does not exist. Creation is
// exclusive, so two processes starting at once agree on one secret.
func secretFile(path string) (string, error) {
	for range 2 {
		s, err := readSecret(path)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("generate %s: %w", filepath.Base(path), err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue // another process made it: read theirs
		}
		if err != nil {
			return "", fmt.Errorf("weaviate secret: %w", err)
		}
		secret := hex.EncodeToString(b[:])
		_, werr := f.WriteString(secret + "\n")
		if err := errors.Join(werr, f.Close()); err != nil {
			os.Remove(path)
			return "", fmt.Errorf("weaviate secret %s: %w", path, err)
		}
		return secret, nil
	}
	return readSecret(path)
}

// readSecret reads the secret at path, tightening its mode to 0600 when
// others may read it. An empty file is an error naming it.
func readSecret(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return "", fmt.Errorf("weaviate secret %s: mode %v, and chmod 600 failed: %w", path, st.Mode().Perm(), err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("weaviate secret: %w", err)
	}
	s := strings.TrimSpace(string(data))
	if s == "" {
		return "", fmt.Errorf("weaviate secret %s is empty; delete it and restart the server to make a new one", path)
	}
	return s, nil
}

// ReadAPIKey returns the API key of the local server whose data dir is
// dataDir (written by Start or StartCluster), without creating one. Errors:
// fs.ErrNotExist (wrapped) when that server was never started, or the
// file unreadable or empty.
func ReadAPIKey(dataDir string) (string, error) {
	key, err := readSecret(filepath.Join(dataDir, APIKeyFile))
	if err != nil {
		return "", fmt.Errorf("local weaviate API key: %w", err)
	}
	return key, nil
}

// authEnv locks a server: API keys on, anonymous access off (Weaviate
// docs, "Authentication": with a scheme configured, anonymous access stays
// off unless enabled), and basic auth on the cluster's internal data port.
func (c credentials) authEnv() []string {
	return []string{
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=false",
		"AUTHENTICATION_APIKEY_ENABLED=true",
		"AUTHENTICATION_APIKEY_ALLOWED_KEYS=" + c.apiKey,
		"AUTHENTICATION_APIKEY_USERS=" + APIKeyUser,
		"CLUSTER_BASIC_AUTH_USERNAME=" + ClusterUser,
		"CLUSTER_BASIC_AUTH_PASSWORD=" + c.clusterPassword,
	}
}

// ReadyKey reports whether a Weaviate at baseURL answers its readiness
// probe (GET /v1/.well-known/ready -> 200) within 2 seconds, sending apiKey
// as a bearer token when it is not empty.
func ReadyKey(ctx context.Context, baseURL, apiKey string) bool {
	return GetJSON(ctx, baseURL+"/v1/.well-known/ready", apiKey, nil) == nil
}

// KeyAccepted reports whether the Weaviate at baseURL accepts apiKey:
// GET /v1/meta, which needs an authenticated user once anonymous access
// is off, answers 200 within 2 seconds.
func KeyAccepted(ctx context.Context, baseURL, apiKey string) bool {
	return GetJSON(ctx, baseURL+"/v1/meta", apiKey, nil) == nil
}
