package installtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// install installs the release as an air-gapped site does and plans against
// the simulator: the provider's archives, unchanged, in a filesystem mirror
// in the packed layout (HOST/cloudstack-cks/cks/<archive>.zip); a lock file
// with the SHA256SUMS' zh: hashes, as the registry would give them; `init`
// with no dev_overrides and no other installation method, which checks the
// archive against those hashes; `providers lock` against the mirror, which
// adds the h1: hash of the unpacked provider and keeps the others; and a
// plan that reads a data source from the simulator. It returns the first
// step that fails, with the CLI's output.
func (c cli) install(t *testing.T, rel *release, sim simulator.Info) error {
	t.Helper()
	work := t.TempDir()
	mirror, rc, err := c.mirror(work, rel)
	if err != nil {
		return err
	}
	dir := filepath.Join(work, "config")
	files := map[string]string{
		filepath.Join(dir, "main.tf"):             configuration(rel.version, sim),
		filepath.Join(dir, ".terraform.lock.hcl"): lockFile(c.host, rel),
	}
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			return err
		}
	}
	if _, err := c.run(dir, rc, "init", "-input=false", "-no-color"); err != nil {
		return err
	}
	if _, err := c.run(dir, rc, "providers", "lock", "-no-color", "-fs-mirror="+mirror, "-platform="+platform()); err != nil {
		return err
	}
	if err := checkLockFile(filepath.Join(dir, ".terraform.lock.hcl"), rel); err != nil {
		return fmt.Errorf("%s providers lock: %w", c, err)
	}
	out, err := c.run(dir, rc, "plan", "-input=false", "-no-color")
	if err != nil {
		return err
	}
	if want := sim.KubernetesVersions["1.33.13"]; !strings.Contains(out, want) {
		return fmt.Errorf("%s plan: the output does not show the version id %s the simulator has:\n%s", c, want, out)
	}
	return checkInstalledVersion(filepath.Join(dir, ".terraform", "providers", c.host, namespace, providerType, rel.version, platform()), rel.version)
}

// mirror puts the release's provider archives, unchanged, into a
// filesystem mirror in the packed layout under work, and writes the
// README's CLI configuration for it; it returns the mirror and the
// configuration's path.
func (c cli) mirror(work string, rel *release) (mirror, rc string, err error) {
	mirror = filepath.Join(work, "mirror")
	pkgDir := filepath.Join(mirror, c.host, namespace, providerType)
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		return "", "", err
	}
	for _, name := range rel.providerArchives() {
		if err := copyFile(filepath.Join(rel.dir, name), filepath.Join(pkgDir, name)); err != nil {
			return "", "", err
		}
	}
	installation, err := readmeInstallation(mirror, c.host)
	if err != nil {
		return "", "", err
	}
	rc = filepath.Join(work, "cli.tfrc")
	return mirror, rc, os.WriteFile(rc, []byte(installation), 0o600)
}

// readmeMirror is the mirror path the README's CLI configuration names.
const readmeMirror = "/srv/terraform-mirror"

// readmeInstallation is the README's provider_installation block, which
// users copy, with the test's mirror and the CLI's registry host.
func readmeInstallation(mirror, host string) (string, error) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		return "", err
	}
	for _, m := range regexp.MustCompile("(?s)```hcl\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		if block := m[1]; strings.Contains(block, "provider_installation {") && strings.Contains(block, readmeMirror) {
			block = strings.ReplaceAll(block, readmeMirror, mirror)
			return strings.ReplaceAll(block, registryHosts["Terraform"]+"/", host+"/"), nil
		}
	}
	return "", fmt.Errorf("README.md has no provider_installation block with the mirror %s", readmeMirror)
}

// configuration pins the release's version (a pre-release is only chosen
// when pinned), as a user testing a snapshot would.
func configuration(version string, sim simulator.Info) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    cks = {
      source  = "cloudstack-cks/cks"
      version = %q
    }
  }
}

provider "cks" {
  api_url    = %q
  api_key    = %q
  secret_key = %q
}

data "cks_kubernetes_version" "this" {
  zone_id          = %q
  semantic_version = "1.33.13"
}

output "kubernetes_version_id" {
  value = data.cks_kubernetes_version.this.id
}
`, version, sim.APIURL, sim.APIKey, sim.SecretKey, sim.ZoneID)
}

// lockFile holds the zh: hashes the registry takes from the SHA256SUMS.
func lockFile(host string, rel *release) string {
	var hashes []string
	for _, name := range rel.providerArchives() {
		hashes = append(hashes, fmt.Sprintf("    %q,\n", "zh:"+rel.sums[name]))
	}
	return fmt.Sprintf("provider %q {\n  version     = %q\n  constraints = %q\n  hashes = [\n%s  ]\n}\n",
		host+"/"+namespace+"/"+providerType, rel.version, rel.version, strings.Join(hashes, ""))
}

// checkInstalledVersion runs the executable the CLI installed into dir with
// -version: it must report the release's version.
func checkInstalledVersion(dir, version string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("the installed provider: %w", err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), providerName) {
			continue
		}
		out, err := exec.Command(filepath.Join(dir, e.Name()), "-version").CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s -version: %w\n%s", e.Name(), err, out)
		}
		if want := providerName + " " + version; !strings.HasPrefix(string(out), want) {
			return fmt.Errorf("%s -version printed %q, want %q", e.Name(), out, want)
		}
		return nil
	}
	return fmt.Errorf("no executable named %s* was installed in %s", providerName, dir)
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// checkLockFile checks that the lock file still holds the zh: hash of each
// provider archive the SHA256SUMS list, next to an h1: hash.
func checkLockFile(path string, rel *release) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lock := string(data)
	for _, name := range rel.providerArchives() {
		if !strings.Contains(lock, `"zh:`+rel.sums[name]+`"`) {
			return fmt.Errorf("the lock file lost the zh: hash of %s that the SHA256SUMS give:\n%s", name, lock)
		}
	}
	if !strings.Contains(lock, `"h1:`) {
		return fmt.Errorf("the lock file has no h1: hash of the installed provider:\n%s", lock)
	}
	return nil
}
