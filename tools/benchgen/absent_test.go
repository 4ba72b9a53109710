package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadNames(t *testing.T) {
	names, err := readNames(strings.NewReader("# comment\n\nRabbitMQ\nPostgreSQL | postgres | libpq\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Name{{Written: "RabbitMQ", Also: []string{}}, {Written: "PostgreSQL", Also: []string{"postgres", "libpq"}}}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if _, err := readNames(strings.NewReader("Kafka\nkafka\n")); err == nil {
		t.Error("a repeated name is not an error")
	}
}

func TestSpellings(t *testing.T) {
	want := []string{"google cloud", "google-cloud", "google.cloud", "google_cloud", "googlecloud"}
	if diff := cmp.Diff(want, spellings("Google Cloud")); diff != "" {
		t.Errorf("spellings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"rabbitmq"}, spellings("RabbitMQ")); diff != "" {
		t.Errorf("spellings (-want +got):\n%s", diff)
	}
}

// writeTree makes files under a new temporary folder.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestAbsentNames(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"client.go":           "// Dial connects to a Redis server.\npackage x\n",
		"docs/USAGE.md":       "Works with google-cloud storage.\n",
		"LICENSE":             "Permission is hereby granted (postgres friendly).\n",
		".git/config":         "kafka\n", // never read
		"internal/kafka_x.go": "",        // a file name counts too
	})
	text, err := corpusText(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []Name{
		{Written: "Redis"},                                  // present, other case
		{Written: "Google Cloud"},                           // present, hyphenated
		{Written: "PostgreSQL", Also: []string{"postgres"}}, // present as another name
		{Written: "Kafka"},                                  // present in a file name
		{Written: "RabbitMQ"},                               // absent
		{Written: "etcd"},                                   // absent
	}
	if diff := cmp.Diff([]string{"RabbitMQ", "etcd"}, absentNames(names, text)); diff != "" {
		t.Errorf("absent names (-want +got):\n%s", diff)
	}
}

func TestAbsentQuestions(t *testing.T) {
	got := absentQuestions("repo", []string{"RabbitMQ", "etcd", "Kafka"}, 2)
	if len(got) != 4 {
		t.Fatalf("got %d questions, want 2 names x 2 cases: %v", len(got), got)
	}
	for i := 0; i < len(got); i += 2 {
		lower, written := got[i], got[i+1]
		if lower[1] != strings.ToLower(written[1]) {
			t.Errorf("pair %d names %q and %q", i/2, lower[1], written[1])
		}
		if !strings.Contains(lower[0], lower[1]) || !strings.Contains(written[0], written[1]) {
			t.Errorf("questions %q, %q do not name %q, %q", lower[0], written[0], lower[1], written[1])
		}
		if written[1] == lower[1] {
			t.Errorf("written form %q equals the lower-case one", written[1])
		}
		if strings.ReplaceAll(lower[0], lower[1], "X") == strings.ReplaceAll(written[0], written[1], "X") {
			t.Errorf("both cases use one template: %q, %q", lower[0], written[0])
		}
	}
	if one := absentQuestions("repo", []string{"etcd"}, 1); one[0][1] != "etcd" || one[1][1] != "Etcd" {
		t.Errorf("etcd is asked as %q and %q, want etcd and Etcd (capitalized when written in lower case)", one[0][1], one[1][1])
	}
	if diff := cmp.Diff(got, absentQuestions("repo", []string{"Kafka", "etcd", "RabbitMQ"}, 2)); diff != "" {
		t.Errorf("the pick depends on the list order (-first +second):\n%s", diff)
	}
}
