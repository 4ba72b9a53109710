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
	set := func(name string, apply func(string) error) error {
		v, ok := lookup(name)
		if !ok || v == "" {
			return nil
		}
		if err := apply(v); err != nil {
			return fmt.Errorf("%s (from %s): %w", Env[name], name, err)
		}
		c.envApplied = append(c.envApplied, envField{path: Env[name], name: name})
		return nil
	}
	str := func(dst *string) func(string) error {
		return func(v string) error { *dst = v; return nil }
	}
	if err := set("RAGBOT_WEAVIATE_URL", str(&c.Weaviate.URL)); err != nil {
		return err
	}
	if err := set("RAGBOT_WEAVIATE_BINARY", str(&c.Weaviate.Binary)); err != nil {
		return err
	}
	if err := set("RAGBOT_EMBEDDER", str(&c.Embedder.Kind)); err != nil {
		return err
	}
	return set("RAGBOT_WEAVIATE_PORT", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("must be a port number, got %q", v)
		}
		c.Weaviate.Port = n
		return nil
	})
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
