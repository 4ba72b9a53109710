package config

import (
	"fmt"
	"strconv"
)

// envField is one field set from the environment, kept so that validation
// messages can say which variable a bad value came from.
type envField struct {
	path, name string
}

// Env lists the environment variables that override ragbot.yaml, keyed by the
// variable, with the YAML path they set. Secrets never live in the file: an
// API key is read from the variable that weaviate.api_key_env names.
var Env = map[string]string{
	"RAGBOT_WEAVIATE_URL":    "weaviate.url",
	"RAGBOT_WEAVIATE_BINARY": "weaviate.binary",
	"RAGBOT_WEAVIATE_PORT":   "weaviate.port",
	"RAGBOT_EMBEDDER":        "embedder.kind",
}

func (c *Config) applyEnv(lookup func(string) (string, bool)) error {
	for _, name := range []string{"RAGBOT_WEAVIATE_URL", "RAGBOT_WEAVIATE_BINARY", "RAGBOT_EMBEDDER", "RAGBOT_WEAVIATE_PORT"} {
		v, ok := lookup(name)
		if !ok || v == "" {
			continue
		}
		switch name {
		case "RAGBOT_WEAVIATE_URL":
			c.Weaviate.URL = v
		case "RAGBOT_WEAVIATE_BINARY":
			c.Weaviate.Binary = v
		case "RAGBOT_EMBEDDER":
			c.Embedder.Kind = v
		case "RAGBOT_WEAVIATE_PORT":
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%s (from %s): must be a port number, got %q", Env[name], name, v)
			}
			c.Weaviate.Port = n
		}
		c.envApplied = append(c.envApplied, envField{path: Env[name], name: name})
	}
	return nil
}

// from returns " (from VAR)" when the field at path was set from the environment.
func (c *Config) from(path string) string {
	for _, f := range c.envApplied {
		if f.path == path {
			return " (from " + f.name + ")"
		}
	}
	return ""
}
