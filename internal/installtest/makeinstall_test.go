package installtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeInstallIsSelectedByInit runs `make install` into a plugin
// directory of a fresh HOME and checks that each CLI's `init`, with no CLI
// configuration and no version constraint, selects that build: Terraform and
// OpenTofu take a pre-release only when a configuration pins it, so the
// version make install files the build under must be a release.
func TestMakeInstallIsSelectedByInit(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	plugins := filepath.Join(home, ".terraform.d", "plugins")
	buildMu.Lock()
	out, err := exec.Command("make", "--no-print-directory", "-C", repoRoot(t), "install", "PLUGIN_ROOT="+plugins).CombinedOutput()
	buildMu.Unlock()
	if err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	rc := filepath.Join(home, "empty.tfrc") // the implied installation: ~/.terraform.d/plugins, then the registry
	config := `terraform {
  required_providers {
    cks = { source = "cloudstack-cks/cks" }
  }
}
`
	for path, content := range map[string]string{rc: "", filepath.Join(home, "main.tf"): config} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range clis(t) {
		versions, err := os.ReadDir(filepath.Join(plugins, c.host, namespace, providerType))
		if err != nil || len(versions) != 1 {
			t.Fatalf("make install filed %v (%v) for %s, want one version", versions, err, c.host)
		}
		version := versions[0].Name()
		_ = os.RemoveAll(filepath.Join(home, ".terraform"))
		_ = os.Remove(filepath.Join(home, ".terraform.lock.hcl"))
		out, err := c.run(home, rc, "init", "-input=false", "-no-color")
		if err != nil {
			t.Fatalf("%s init does not take the build make install filed as %s: %v", c, version, err)
		}
		if want := fmt.Sprintf("Installing cloudstack-cks/cks v%s", version); !strings.Contains(out, want) {
			t.Errorf("%s init did not say %q:\n%s", c, want, out)
		}
		installed := filepath.Join(home, ".terraform", "providers", c.host, namespace, providerType, version, platform())
		if _, err := os.Stat(filepath.Join(installed, providerName+"_v"+version)); err != nil {
			t.Errorf("%s init: the build is not where init installs it: %v", c, err)
		}
	}
}
