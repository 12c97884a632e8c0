package installtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// releaseDistEnv names a dist directory `make release-snapshot` already
// wrote (make test-install passes dist/); without it the tests build their
// own snapshot once.
const releaseDistEnv = "CKS_RELEASE_DIST"

// repoRoot is the repository, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

var (
	snapshotOnce sync.Once
	snapshotDir  string
	snapshotErr  error
	// scratch holds what the tests build once for all of them.
	scratch string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "installtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	scratch = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// goodSnapshot is the dist directory of the release as .goreleaser.yml
// configures it: the one CKS_RELEASE_DIST names, or one built once.
func goodSnapshot(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv(releaseDistEnv); dir != "" {
		return dir
	}
	snapshotOnce.Do(func() {
		snapshotDir = filepath.Join(scratch, "dist")
		snapshotErr = buildSnapshot(repoRoot(t), filepath.Join(repoRoot(t), ".goreleaser.yml"), snapshotDir)
	})
	if snapshotErr != nil {
		t.Fatal(snapshotErr)
	}
	return snapshotDir
}

// brokenSnapshot builds a snapshot from a copy of .goreleaser.yml in which
// old is replaced by broken, as a mistaken edit of the configuration would.
func brokenSnapshot(t *testing.T, old, broken string) string {
	t.Helper()
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), old); n != 1 {
		t.Fatalf(".goreleaser.yml has %d occurrences of %q, the line this test breaks; update the test", n, old)
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "goreleaser.yml")
	if err := os.WriteFile(config, []byte(strings.Replace(string(data), old, broken, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(dir, "dist")
	if err := buildSnapshot(root, config, dist); err != nil {
		t.Fatal(err)
	}
	return dist
}

// buildMu lets one build of the provider run at a time: the first compiles
// its packages into the Go build cache and the others only link, instead of
// each compiling them at once on a cold cache.
var buildMu sync.Mutex

// buildSnapshot runs `make release-snapshot` with the given configuration
// into dist.
func buildSnapshot(root, config, dist string) error {
	buildMu.Lock()
	defer buildMu.Unlock()
	cmd := exec.Command("make", "--no-print-directory", "-C", root, "release-snapshot",
		"GORELEASER_CONFIG="+config, "RELEASE_DIST="+dist)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("make release-snapshot GORELEASER_CONFIG=%s: %w\n%s", config, err, out)
	}
	return nil
}

// copyDist copies a dist directory's top-level files, so that a test can
// change a release without touching the one other tests read.
func copyDist(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
