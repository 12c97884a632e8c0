package installtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// clisEnv lists the CLIs to install with, separated by spaces (make
// test-install names Terraform at the oldest and newest versions and
// OpenTofu). Without it the tests use TF_ACC_TERRAFORM_PATH, which the
// GNUmakefile sets, or terraform on PATH.
const clisEnv = "CKS_INSTALL_TEST_CLIS"

// cli is one Terraform or OpenTofu executable.
type cli struct {
	path    string
	product string // "Terraform" or "OpenTofu"
	version string // as `version` prints it, "v1.11.4"
	// host is the registry host the CLI expands "cloudstack-cks/cks" with.
	host string
}

// registryHosts maps each CLI to the host it expands "cloudstack-cks/cks"
// with.
var registryHosts = map[string]string{"Terraform": "registry.terraform.io", "OpenTofu": "registry.opentofu.org"}

func (c cli) String() string { return c.product + " " + c.version }

func clis(t *testing.T) []cli {
	t.Helper()
	paths := strings.Fields(os.Getenv(clisEnv))
	if len(paths) == 0 {
		paths = []string{"terraform"}
		if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
			paths = []string{p}
		}
	}
	var out []cli
	for _, p := range paths {
		cmd := exec.Command(p, "version")
		cmd.Env = cliEnv("HOME=" + t.TempDir())
		printed, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s version: %v", p, err)
		}
		c := cli{path: p}
		for _, line := range strings.Split(string(printed), "\n") {
			c.product, c.version, _ = strings.Cut(line, " ")
			if c.host = registryHosts[c.product]; c.host != "" {
				break
			}
		}
		if c.host == "" {
			t.Fatalf("%s version printed %q: neither Terraform nor OpenTofu", p, printed)
		}
		out = append(out, c)
	}
	return out
}

// run runs the CLI in dir with the CLI configuration rc and a HOME of its
// own, so that nothing of the user's (plugin directories, credentials,
// dev_overrides) takes part, and returns its output.
func (c cli) run(dir, rc string, args ...string) (string, error) {
	cmd := exec.Command(c.path, append([]string{"-chdir=" + dir}, args...)...)
	cmd.Env = cliEnv("TF_CLI_CONFIG_FILE="+rc, "HOME="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w\n%s", c, strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

// cliEnv is the test's environment without the TF_ and CLOUDSTACK_
// variables and HOME, plus vars.
func cliEnv(vars ...string) []string {
	env := append([]string{"CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1"}, vars...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_") && !strings.HasPrefix(kv, "CLOUDSTACK_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return env
}
