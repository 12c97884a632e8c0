package installtest

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReleaseCarriesThePolicyBundle checks the policy library the release
// carries for sites that gate plans offline: an OPA bundle listed in the
// SHA256SUMS, with the release's version as its revision, every policy of
// policy/ and none of its tests, and roots that leave data.cks to the
// parameters loaded beside it, which OPA then applies.
func TestReleaseCarriesThePolicyBundle(t *testing.T) {
	t.Parallel()
	rel, err := readRelease(goodSnapshot(t))
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("cks-policy_%s.tar.gz", rel.version)
	if _, ok := rel.sums[name]; !ok {
		t.Fatalf("the SHA256SUMS list no %s, the policy bundle (they list %v)", name, slices.Sorted(maps.Keys(rel.sums)))
	}
	bundle := filepath.Join(rel.dir, name)
	files, err := readBundle(bundle)
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		Revision string   `json:"revision"`
		Roots    []string `json:"roots"`
	}
	if err := json.Unmarshal(files[".manifest"], &manifest); err != nil {
		t.Fatalf("the bundle's .manifest: %v", err)
	}
	if manifest.Revision != rel.version || !slices.Equal(manifest.Roots, []string{"main", "lib/cks"}) {
		t.Errorf("the bundle's manifest has revision %q and roots %q, want %q and [main lib/cks]", manifest.Revision, manifest.Roots, rel.version)
	}
	root := repoRoot(t)
	want := map[string][]byte{}
	err = filepath.WalkDir(filepath.Join(root, "policy"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".rego") || strings.HasSuffix(path, "_test.rego") {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err == nil {
			want[filepath.ToSlash(rel)], err = os.ReadFile(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for path, content := range want {
		if got, ok := files[path]; !ok || string(got) != string(content) {
			t.Errorf("the bundle's %s is not policy's (present: %v)", path, ok)
		}
	}
	for path := range files {
		if strings.HasSuffix(path, ".rego") && want[path] == nil {
			t.Errorf("the bundle has %s, which is no policy of policy/", path)
		}
	}

	params := filepath.Join(root, "examples", "policy-gate", "params.yaml")
	cmd := exec.Command("go", "tool", "-modfile=tools/policy/go.mod", "opa", "eval", "--format", "raw",
		"-b", bundle, "-d", params, "data.lib.cks.params.allowed_api_cidrs")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "203.0.113.0/24") {
		t.Fatalf("opa eval with the bundle and examples/policy-gate/params.yaml should apply the parameters: %v\n%s", err, out)
	}
}

// readBundle reads the files of a gzipped tar, by path without the leading
// slash opa build writes.
func readBundle(path string) (map[string][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("the policy bundle %s: %w", path, err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("the policy bundle %s: %w", path, err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		files[strings.TrimPrefix(h.Name, "/")] = data
	}
}
