package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The policy library judged by the engine users run it with: OPA, pinned
// in tools/policy/go.mod. The fixture test evaluates every plan it writes
// with it, under whichever CLI wrote the plan (make test-opentofu runs it
// with OpenTofu), so that a verdict does not depend on the CLI.

var (
	opaOnce sync.Once
	opaPath string
	opaErr  error
)

// repositoryRoot is the provider's repository, two levels above this
// package.
func repositoryRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// pinnedOPA is the OPA binary of tools/policy/go.mod, built once (from the
// Go module cache, offline once it holds the modules).
func pinnedOPA(t *testing.T) string {
	t.Helper()
	root := repositoryRoot(t)
	opaOnce.Do(func() {
		tool := func(args ...string) ([]byte, error) {
			cmd := exec.Command("go", append([]string{"tool", "-modfile=tools/policy/go.mod"}, args...)...)
			cmd.Dir = root
			return cmd.CombinedOutput()
		}
		if out, err := tool("opa", "version"); err != nil {
			opaErr = fmt.Errorf("building OPA from tools/policy/go.mod: %w\n%s", err, out)
			return
		}
		out, err := tool("-n", "opa")
		if err != nil {
			opaErr = fmt.Errorf("finding OPA: %w\n%s", err, out)
			return
		}
		opaPath = strings.TrimSpace(string(out))
	})
	if opaErr != nil {
		t.Fatal(opaErr)
	}
	return opaPath
}

// policyVerdict is what the library says about a plan: its deny and warn
// messages.
type policyVerdict struct {
	Deny []string
	Warn []string
}

// judgePlan evaluates the policy library (policy/) on a plan, with
// examples/policy-gate/params.yaml as its parameters, as the guide runs it.
func judgePlan(t *testing.T, planFile string) policyVerdict {
	t.Helper()
	root := repositoryRoot(t)
	cmd := exec.Command(pinnedOPA(t), "eval", "--format", "json",
		"-d", filepath.Join(root, "policy"), "-d", filepath.Join(root, "examples", "policy-gate", "params.yaml"),
		"-i", planFile, "{\"deny\": data.main.deny, \"warn\": data.main.warn}")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("opa eval on %s: %v\n%s", planFile, err, stderr.String())
	}
	var out struct {
		Result []struct {
			Expressions []struct {
				Value policyVerdict `json:"value"`
			} `json:"expressions"`
		} `json:"result"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out.Result) != 1 || len(out.Result[0].Expressions) != 1 {
		t.Fatalf("opa eval on %s: unexpected output %s (%v)", planFile, stdout.String(), err)
	}
	v := out.Result[0].Expressions[0].Value
	slices.Sort(v.Deny)
	slices.Sort(v.Warn)
	return v
}

// tagged are the messages of one policy, by the tag they start with.
func tagged(msgs []string, tag string) []string {
	var out []string
	for _, m := range msgs {
		if strings.HasPrefix(m, "["+tag+"]") {
			out = append(out, m)
		}
	}
	return out
}
