package installtest

import (
	"archive/zip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// verify checks a release's sums, installs it with one CLI, which judges the
// archives and what they hold, and checks its registry manifest; it returns
// the first failure.
func verify(t *testing.T, dist string, c cli, sim simulator.Info) error {
	t.Helper()
	rel, err := readRelease(dist)
	if err != nil {
		return err
	}
	if err := c.install(t, rel, sim); err != nil {
		return err
	}
	return rel.checkManifest(t.TempDir())
}

// TestReleaseInstallsFromMirror installs the release .goreleaser.yml builds
// with each CLI, as an air-gapped site would, and plans against the
// simulator with it.
func TestReleaseInstallsFromMirror(t *testing.T) {
	t.Parallel()
	dist := goodSnapshot(t)
	sim := simtest.Start(t)
	for _, c := range clis(t) {
		t.Run(c.product+"_"+c.version, func(t *testing.T) {
			t.Parallel()
			if err := verify(t, dist, c, sim.Info); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestBrokenReleaseFailsInstall breaks the release the ways that would
// leave users with a provider they cannot install, and checks that the
// install test fails on each, saying why.
func TestBrokenReleaseFailsInstall(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	cases := []struct {
		name string
		dist func(t *testing.T) string
		want string // what the failure says, with every CLI
	}{
		{
			name: "archive name",
			dist: func(t *testing.T) string {
				return brokenSnapshot(t, `name_template: "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}"`,
					`name_template: "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}-{{ .Arch }}"`)
			},
			want: "cloudstack-cks/cks was not found in any of the search locations",
		},
		{
			name: "binary name",
			dist: func(t *testing.T) string {
				return brokenSnapshot(t, `binary: "{{ .ProjectName }}_v{{ .Version }}"`, `binary: "cks_v{{ .Version }}"`)
			},
			want: "could not find executable file starting with terraform-provider-cks",
		},
		{
			name: "manifest name",
			dist: func(t *testing.T) string {
				return brokenSnapshot(t, `name_template: "{{ .ProjectName }}_{{ .Version }}_manifest.json"`,
					`name_template: "manifest.json"`)
			},
			want: "the SHA256SUMS list no terraform-provider-cks_",
		},
		{
			name: "manifest protocol",
			dist: func(t *testing.T) string {
				return withManifest(t, goodSnapshot(t), `{"version": 1, "metadata": {"protocol_versions": ["5.0"]}}`)
			},
			want: `declares protocol_versions ["5.0"], but the provider binary speaks protocol 6`,
		},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			dist := tc.dist(t)
			for _, c := range clis(t) {
				err := verify(t, dist, c, sim.Info)
				if err == nil {
					t.Fatalf("%s installed a release with a broken %s", c, tc.name)
				}
				if !says(err, tc.want) {
					t.Errorf("%s: the failure does not say %q:\n%v", c, tc.want, err)
				}
			}
		})
	}
}

// says reports whether the error's text, with the CLI's line wrapping
// undone, contains want.
func says(err error, want string) bool {
	return err != nil && strings.Contains(strings.Join(strings.Fields(err.Error()), " "), want)
}

// withManifest is a copy of the release whose registry manifest says
// content, with its SHA256SUMS line to match, as a wrong
// terraform-registry-manifest.json would make it.
func withManifest(t *testing.T, good, content string) string {
	t.Helper()
	dist := copyDist(t, good)
	rel, err := readRelease(dist)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("%s_%s_manifest.json", providerName, rel.version)
	sumsPath := filepath.Join(dist, fmt.Sprintf("%s_%s_SHA256SUMS", providerName, rel.version))
	if err := os.WriteFile(filepath.Join(dist, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := fileSHA256(filepath.Join(dist, name))
	if err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(sumsPath)
	if err != nil {
		t.Fatal(err)
	}
	updated := strings.Replace(string(sums), rel.sums[name]+"  "+name, sum+"  "+name, 1)
	if updated == string(sums) {
		t.Fatalf("%s has no line for %s", sumsPath, name)
	}
	if err := os.WriteFile(sumsPath, []byte(updated), 0o644); err != nil {
		t.Fatal(err)
	}
	return dist
}

// TestLockChecksArchiveAgainstSums gives the CLIs a SHA256SUMS whose sum
// for the provider's archive is wrong (the archive itself intact, so that
// only the CLI's own check can notice): `init` must refuse it.
func TestLockChecksArchiveAgainstSums(t *testing.T) {
	t.Parallel()
	rel, err := readRelease(goodSnapshot(t))
	if err != nil {
		t.Fatal(err)
	}
	archives := rel.providerArchives()
	if len(archives) == 0 {
		t.Fatal("the release has no provider archive")
	}
	wrong := *rel
	wrong.sums = map[string]string{archives[0]: strings.Repeat("0", 64)}
	sim := simtest.Start(t)
	for _, c := range clis(t) {
		err := c.install(t, &wrong, sim.Info)
		if !says(err, "doesn't match any of the checksums previously recorded in the dependency lock file") {
			t.Errorf("%s installed an archive whose sum is not the one the SHA256SUMS give; error: %v", c, err)
		}
	}
}

// TestReleaseShipsCksim checks the simulator's own archive: named after
// it, listed in the SHA256SUMS, and holding a cksim that reports the
// release's version.
func TestReleaseShipsCksim(t *testing.T) {
	t.Parallel()
	rel, err := readRelease(goodSnapshot(t))
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("cksim_%s_%s.zip", rel.version, platform())
	if _, ok := rel.sums[name]; !ok {
		t.Fatalf("the SHA256SUMS list no %s", name)
	}
	zr, err := zip.OpenReader(filepath.Join(rel.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var bin string
	for _, f := range zr.File {
		if f.Name == "cksim" || f.Name == "cksim.exe" {
			if bin, err = extractFile(f, filepath.Join(t.TempDir(), f.Name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if bin == "" {
		t.Fatalf("%s holds no cksim executable", name)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "cksim "+rel.version) {
		t.Fatalf("cksim version printed %q (%v), want it to start with %q", out, err, "cksim "+rel.version)
	}
}
