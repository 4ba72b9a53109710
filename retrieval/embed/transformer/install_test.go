package transformer

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInstallScriptPins checks that scripts/install-model.sh pins the same
// files as Specs and RuntimeVersion.
func TestInstallScriptPins(t *testing.T) {
	data, err := os.ReadFile("../../../scripts/install-model.sh")
	if err != nil {
		t.Fatal(err)
	}
	script := string(data)
	m := regexp.MustCompile(`(?s)\nMODELS='\n(.*?)\n'\n`).FindStringSubmatch(script)
	if m == nil {
		t.Fatal("scripts/install-model.sh: no MODELS='...' block")
	}
	got := strings.Split(m[1], "\n")
	var want []string
	for _, s := range Specs {
		want = append(want, strings.Join([]string{s.Name, s.Maven, s.JarSHA256, s.ONNXSHA256, s.TokenizerSHA256}, "|"))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scripts/install-model.sh MODELS differ from Specs (-want +got):\n%s", diff)
	}
	for name, want := range map[string]string{
		"ORT_VERSION":    RuntimeVersion,
		"ORT_LIB":        "libonnxruntime.so." + RuntimeVersion,
		"ORT_LIB_SHA256": runtimeSHA256,
	} {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindStringSubmatch(script)
		if m == nil || m[1] != want {
			t.Errorf("scripts/install-model.sh: %s = %v, want %s", name, m, want)
		}
	}
}
