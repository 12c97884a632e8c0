package provider

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The provider the example tests install, built once for the whole test
// binary: every example runner puts a link to it in its own mirror. A build
// per runner linked the same binary again for each of them, minutes of CPU
// per run on two cores.

var providerBuild struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// builtProvider is the provider built from this tree, the same for every
// test of this run.
func builtProvider(t *testing.T) string {
	t.Helper()
	providerBuild.once.Do(func() {
		providerBuild.path = filepath.Join(providerBuild.dir, "terraform-provider-cks")
		out, err := exec.Command("go", "build", "-o", providerBuild.path, "github.com/cloudstack-cks/terraform-provider-cks").CombinedOutput()
		if err != nil {
			providerBuild.err = fmt.Errorf("building the provider: %w\n%s", err, out)
		}
	})
	if providerBuild.err != nil {
		t.Fatal(providerBuild.err)
	}
	return providerBuild.path
}

// TestMain makes the directory of the build, and removes it once every
// test has run.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cks-provider-build-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	providerBuild.dir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// linkOrCopy puts src at dst: a hard link, or a copy where the two are on
// different file systems.
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
