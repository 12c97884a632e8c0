package provider

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// ownProcessVar names, in a child process, the test it was started for.
const ownProcessVar = "CKS_TEST_OWN_PROCESS"

// inOwnProcess lets a test that needs process-wide variables (the CLI's
// log settings, the provider namespace the test framework serves under)
// run alongside the parallel tests instead of before them: the test binary
// runs the test again, alone, in a child process whose environment adds
// vars. It returns true in that child, where the test goes on; in the
// parent it marks the test parallel, waits for the child, fails with its
// output when it fails, and returns false.
func inOwnProcess(t *testing.T, vars map[string]string) bool {
	t.Helper()
	if os.Getenv(ownProcessVar) == t.Name() {
		return true
	}
	t.Parallel()
	cmd := exec.CommandContext(t.Context(), os.Args[0],
		"-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v", "-test.timeout=15m")
	cmd.Env = append(os.Environ(), ownProcessVar+"="+t.Name())
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("%s in its own process: %v\n%s", t.Name(), err, out)
	}
	return false
}
