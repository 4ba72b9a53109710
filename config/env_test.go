package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config"
)

// TestEnv checks the RAGBOT_* overrides, and that a bad value from the
// environment is reported with the variable it came from.
func TestEnv(t *testing.T) {
	const sources = "sources: [{name: handbook, kind: markdown, path: docs}]\n"
	type weaviate struct {
		URL, Binary, Embedder string
		Port                  int
	}
	defaults := weaviate{Port: 8079, Embedder: "offline"}
	tests := []struct {
		name    string
		yaml    string
		env     map[string]string
		want    weaviate
		wantErr string
	}{
		{name: "no variables", want: defaults},
		{
			name: "url",
			env:  map[string]string{"RAGBOT_WEAVIATE_URL": "http://weaviate.internal:8080"},
			want: weaviate{URL: "http://weaviate.internal:8080", Port: 8079, Embedder: "offline"},
		},
		{
			name: "url replaces the file's",
			yaml: "weaviate: {url: 'http://from-file:8080'}\n",
			env:  map[string]string{"RAGBOT_WEAVIATE_URL": "https://from-env"},
			want: weaviate{URL: "https://from-env", Port: 8079, Embedder: "offline"},
		},
		{
			name: "empty variable is ignored",
			yaml: "weaviate: {url: 'http://from-file:8080', port: 9100}\n",
			env:  map[string]string{"RAGBOT_WEAVIATE_URL": "", "RAGBOT_WEAVIATE_PORT": ""},
			want: weaviate{URL: "http://from-file:8080", Port: 9100, Embedder: "offline"},
		},
		{
			name: "port replaces the file's",
			yaml: "weaviate: {port: 9100}\n",
			env:  map[string]string{"RAGBOT_WEAVIATE_PORT": "9200"},
			want: weaviate{Port: 9200, Embedder: "offline"},
		},
		{
			name: "binary and embedder",
			env:  map[string]string{"RAGBOT_WEAVIATE_BINARY": "/opt/weaviate/bin/weaviate-server", "RAGBOT_EMBEDDER": "offline"},
			want: weaviate{Binary: "/opt/weaviate/bin/weaviate-server", Port: 8079, Embedder: "offline"},
		},
		{
			name:    "port not a number",
			env:     map[string]string{"RAGBOT_WEAVIATE_PORT": "abc"},
			wantErr: `weaviate.port (from RAGBOT_WEAVIATE_PORT): must be a port number, got "abc"`,
		},
		{
			name:    "port out of range",
			env:     map[string]string{"RAGBOT_WEAVIATE_PORT": "70000"},
			wantErr: `weaviate.port (from RAGBOT_WEAVIATE_PORT): must be 1..65530 (ports port..port+5 are used), got 70000`,
		},
		{
			name:    "bad port in the file does not name a variable",
			yaml:    "weaviate: {port: 70000}\n",
			wantErr: `weaviate.port: must be 1..65530 (ports port..port+5 are used), got 70000`,
		},
		{
			name:    "url without scheme",
			env:     map[string]string{"RAGBOT_WEAVIATE_URL": "weaviate.local"},
			wantErr: `weaviate.url (from RAGBOT_WEAVIATE_URL): must be an absolute http(s) URL or empty for the embedded server, got "weaviate.local"`,
		},
		{
			name:    "url with credentials",
			env:     map[string]string{"RAGBOT_WEAVIATE_URL": "https://admin:hunter2@weaviate.internal"},
			wantErr: `weaviate.url (from RAGBOT_WEAVIATE_URL): must not hold credentials; put the API key in the variable named by weaviate.api_key_env`,
		},
		{
			name: "embedder",
			env:  map[string]string{"RAGBOT_EMBEDDER": "openai"},
			// Kind openai from the environment needs its settings in the file.
			wantErr: "embedder.base_url: must be set\n" +
				`embedder.model: must name the embeddings model for kind openai, e.g. "text-embedding-3-small"`,
		},
		{
			name: "several, each with its variable",
			env: map[string]string{
				"RAGBOT_WEAVIATE_URL":  "weaviate.local",
				"RAGBOT_WEAVIATE_PORT": "0",
				"RAGBOT_EMBEDDER":      "bert",
			},
			wantErr: `weaviate.url (from RAGBOT_WEAVIATE_URL): must be an absolute http(s) URL or empty for the embedded server, got "weaviate.local"` + "\n" +
				`weaviate.port (from RAGBOT_WEAVIATE_PORT): must be 1..65530 (ports port..port+5 are used), got 0` + "\n" +
				`embedder.kind (from RAGBOT_EMBEDDER): got "bert", want offline, openai, codesearch or onnx`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tt.yaml+sources), dir, env(tt.env))
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Parse succeeded with %v, want error %q", tt.env, tt.wantErr)
				}
				if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
					t.Errorf("Parse error mismatch (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse with %v: %v", tt.env, err)
			}
			got := weaviate{URL: cfg.Weaviate.URL, Binary: cfg.Weaviate.Binary, Embedder: cfg.Embedder.Kind, Port: cfg.Weaviate.Port}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse with %v mismatch (-want +got):\n%s", tt.env, diff)
			}
		})
	}
}

// TestAPIKeyEnv checks that weaviate.api_key_env is looked up in the
// environment given to Parse, not the process's.
func TestAPIKeyEnv(t *testing.T) {
	data := []byte(`
weaviate: {url: 'https://weaviate.internal', api_key_env: RAGBOT_TEST_WEAVIATE_KEY}
sources: [{name: handbook, kind: markdown, path: docs}]
`)
	tests := []struct {
		name string
		env  map[string]string
		want string // error; "" for none
	}{
		{name: "set", env: map[string]string{"RAGBOT_TEST_WEAVIATE_KEY": "k"}},
		{name: "unset", want: "weaviate.api_key_env: names RAGBOT_TEST_WEAVIATE_KEY, which is not set in the environment"},
		{
			name: "empty",
			env:  map[string]string{"RAGBOT_TEST_WEAVIATE_KEY": ""},
			want: "weaviate.api_key_env: names RAGBOT_TEST_WEAVIATE_KEY, which is not set in the environment",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse(data, dir, env(tt.env))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
