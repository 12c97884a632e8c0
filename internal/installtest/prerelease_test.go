package installtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// TestSnapshotIsSelectedOnlyByItsExactVersion: a snapshot is a pre-release
// (0.1.0-snapshot-<commit>), which the CLIs select only for a version
// constraint that names it exactly. An init whose constraint is a range
// the snapshot's version lies in (>= 0.0.1) finds nothing in the mirror
// (the exact pin installs it: TestReleaseInstallsFromMirror), and the
// README, which tells users how to install from a mirror, says so.
func TestSnapshotIsSelectedOnlyByItsExactVersion(t *testing.T) {
	t.Parallel()
	rel, err := readRelease(goodSnapshot(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rel.version, "-snapshot-") {
		t.Fatalf("the snapshot's version %q is not a pre-release", rel.version)
	}
	for _, c := range clis(t) {
		t.Run(c.product+"_"+c.version, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			_, rc, err := c.mirror(work, rel)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(work, "config")
			config := strings.Replace(configuration(rel.version, simulator.Info{}), `version = "`+rel.version+`"`,
				`version = ">= 0.0.1"`, 1)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := c.run(dir, rc, "init", "-input=false", "-no-color")
			if err == nil || !strings.Contains(out, "no available releases match") {
				t.Fatalf("init with version >= 0.0.1 should not select the snapshot %s (%v):\n%s", rel.version, err, out)
			}
		})
	}
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pre-release", `version = "0.1.0-snapshot-`, "a range"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("the README's install section does not say that a snapshot needs its exact version (%q)", want)
		}
	}
}
