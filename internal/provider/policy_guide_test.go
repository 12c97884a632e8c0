package provider

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuidePolicyCommands runs the CI gates guide's commands for the policy
// library as written, offline, in the directory of examples/policy-gate
// applied against the simulator: OPA and conftest on the release's bundle
// (make policy-bundle builds it as the release does, under its 0.1.0 name),
// and the pinned engines run with go tool from a checkout of the
// repository. They pass on the cluster in sync and deny once it drifted.
func TestGuidePolicyCommands(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	const doc = "docs/guides/drift-ci-gates.md"
	root := repositoryRoot(t)
	env := newSimEnv(t)
	r := newExampleRunner(t)
	work := r.copyExample(filepath.Join(root, "examples", "policy-gate"))
	vars := policyGateVars(env)
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	r.terraform(work, vars, "apply", "-auto-approve", "-input=false", "-no-color")

	bundle := exec.Command("make", "--no-print-directory", "-C", root, "policy-bundle", "POLICY_BUNDLE_VERSION=0.1.0",
		"POLICY_BUNDLE_DIR="+work)
	if out, err := bundle.CombinedOutput(); err != nil {
		t.Fatalf("make policy-bundle: %v\n%s", err, out)
	}
	params, err := os.ReadFile(filepath.Join(root, "examples", "policy-gate", "params.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, work, "params.yaml", string(params))
	checkout(t, root, filepath.Join(work, "terraform-provider-cks"))
	engines := r.policyEngines(t, root)

	opa := shBlock(t, doc, "opa eval --fail-defined --format pretty -b cks-policy_0.1.0.tar.gz")
	conftest := shBlock(t, doc, "conftest test --policy cks-policy/policy")
	offline := shBlock(t, doc, "go tool -modfile=tools/policy/go.mod opa eval")
	for _, lines := range []string{opa, conftest, offline} {
		r.shellLines(work, append(vars, engines), lines)
	}

	worker := env.NthWorker(env.Cluster(env.liveClusters()[0].ID), 0)
	if err := env.Sim.StopKubelet(worker.ID, true); err != nil {
		t.Fatal(err)
	}
	for _, lines := range []string{opa, offline} {
		out, err := r.shellRun(work, append(vars, engines), lines)
		if err == nil || !strings.Contains(out, "[drift] cluster prod (") || !strings.Contains(out, "node_not_ready") {
			t.Fatalf("the guide's commands should deny the plan of the drifted cluster: %v\n%s\n%s", err, lines, out)
		}
	}
	if out, err := r.shellRun(work, append(vars, engines), strings.Replace(conftest, "mkdir -p", "rm -rf cks-policy && mkdir -p", 1)); err == nil ||
		!strings.Contains(out, " - plan.json - main - [drift] cluster prod (") || !strings.Contains(out, "2 failures") {
		t.Fatalf("conftest should deny the plan of the drifted cluster: %v\n%s", err, out)
	}
	r.terraform(work, vars, "destroy", "-auto-approve", "-input=false", "-no-color")
}

// checkout copies into dir what a checkout of the repository holds for the
// guide's go tool commands: the module files, the policy engines' module
// and the library.
func checkout(t *testing.T, root, dir string) {
	t.Helper()
	for _, f := range []string{"go.mod", "go.sum", "tools/policy/go.mod", "tools/policy/go.sum"} {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Dir(filepath.Join(dir, f)), filepath.Base(f), string(data))
	}
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "policy"), filepath.Join(dir, "policy")).CombinedOutput(); err != nil {
		t.Fatalf("copying policy/: %v\n%s", err, out)
	}
}

// policyEngines puts opa and conftest, the pinned builds, on a PATH entry
// of their own, as installed engines; it returns that entry as
// CKS_TEST_PATH_PREFIX for shellRun.
func (r *exampleRunner) policyEngines(t *testing.T, root string) string {
	t.Helper()
	bin := t.TempDir()
	for _, tool := range []string{"opa", "conftest"} {
		cmd := exec.Command("go", "tool", "-modfile=tools/policy/go.mod", tool, "--help")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", tool, err, out)
		}
		cmd = exec.Command("go", "tool", "-modfile=tools/policy/go.mod", "-n", tool)
		cmd.Dir = root
		path, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(strings.TrimSpace(string(path)), filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return pathPrefixEnv + "=" + bin
}
