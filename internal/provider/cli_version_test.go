package provider

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
)

// skipBelowCLI skips a test the CLI cannot run, by its version, as
// tfversion.SkipBelow does for the tests terraform-plugin-testing runs.
// OpenTofu's versions are behind Terraform's, so a Terraform version as the
// minimum leaves OpenTofu out of features it lacks.
func skipBelowCLI(t *testing.T, minimum string) {
	t.Helper()
	if !cliAtLeast(t, minimum) {
		t.Skipf("the CLI is %s; this test needs %s or later", cliVersion(t), minimum)
	}
}

// cliAtLeast tells whether the CLI the tests run is minimum or later.
func cliAtLeast(t *testing.T, minimum string) bool {
	t.Helper()
	return !cliVersion(t).LessThan(version.Must(version.NewVersion(minimum)))
}

// cliVersion is the version the CLI the tests run reports.
func cliVersion(t *testing.T) *version.Version {
	t.Helper()
	cmd := exec.Command(terraformPath(), "version", "-json")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	out, err := cmd.Output()
	start := strings.Index(string(out), "{")
	if err != nil || start < 0 {
		t.Fatalf("terraform version -json: %v\n%s", err, out)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out[start:], &v); err != nil {
		t.Fatalf("terraform version -json: %v\n%s", err, out)
	}
	parsed, err := version.NewVersion(v.Version)
	if err != nil {
		t.Fatalf("terraform version -json: %v", err)
	}
	return parsed
}
