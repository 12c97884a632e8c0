package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
)

// Keeping the SSH private key out of plans: with ssh.private_key_file or the
// SSH agent, the key is read or used when the check runs, and no saved plan
// (terraform show -json of it, which the plan checks below read) or state
// holds it.

// keyLines are the lines of a PEM private key that identify it, so that a
// key written with escaped newlines is found too.
func keyLines(pemKey []byte) []relSecret {
	var out []relSecret
	for _, line := range strings.Split(string(pemKey), "\n") {
		if len(line) >= 32 && !strings.HasPrefix(line, "-----") {
			out = append(out, relSecret{"a line of the SSH private key", line})
		}
	}
	return out
}

// keyInPlan checks whether the whole JSON plan, sensitive values included,
// holds the key.
type keyInPlan struct {
	key  []relSecret
	want bool
}

func (c keyInPlan) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	raw, err := json.Marshal(req.Plan)
	if err != nil {
		resp.Error = err
		return
	}
	found := len(relLeaks(c.key, string(raw))) > 0
	switch {
	case found && !c.want:
		resp.Error = fmt.Errorf("the saved plan holds the SSH private key")
	case !found && c.want:
		resp.Error = fmt.Errorf("the saved plan does not hold the SSH private key, so this check cannot see it")
	}
}

// noKeyInState checks the whole state, sensitive values included.
type noKeyInState struct{ key []relSecret }

func (c noKeyInState) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	raw, err := json.Marshal(req.State)
	if err != nil {
		resp.Error = err
		return
	}
	if leaks := relLeaks(c.key, string(raw)); len(leaks) > 0 {
		resp.Error = fmt.Errorf("the state holds the SSH private key")
	}
}

func TestAccClusterDrift_PrivateKeyFileKeepsTheKeyOutOfPlans(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 1})
	key := keyLines(e.Sim.PrivateKeyPEM())
	withFile := e.driftHCL(cl.ID, fmt.Sprintf("  ssh = {\n    private_key_file = %q\n    host_key = %q\n  }\n", e.KeyFile, e.HostKeyLine(cl.ID)))
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			// The control: with private_key, the saved plan holds the key.
			Config:           e.driftHCL(cl.ID, e.sshHCL(cl.ID)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{keyInPlan{key: key, want: true}}},
		},
		{
			Config: withFile,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{keyInPlan{key: key}},
				PostApplyPostRefresh: []plancheck.PlanCheck{keyInPlan{key: key}},
			},
			ConfigStateChecks: append(expectDriftFindings(),
				noKeyInState{key},
				expectDriftAttr("nodes_checked", knownvalue.Bool(true)),
				expectDriftAttr("ssh", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"private_key_file": knownvalue.StringExact(e.KeyFile), "private_key": knownvalue.Null()}))),
		},
		{
			// A plan of the same configuration, as a CI gate runs it.
			Config:           withFile + "",
			PlanOnly:         true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{keyInPlan{key: key}}},
		},
	}})
}

// TestAccClusterDrift_SSHAgentSignsForTheCheck is not parallel: it sets
// SSH_AUTH_SOCK, which the in-process provider reads.
func TestAccClusterDrift_SSHAgentSignsForTheCheck(t *testing.T) {
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 1})
	raw, err := ssh.ParseRawPrivateKey(e.Sim.PrivateKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	withKey := agent.NewKeyring()
	if err := withKey.Add(agent.AddedKey{PrivateKey: raw, Comment: "cks"}); err != nil {
		t.Fatal(err)
	}
	agentSocket, emptySocket := testutil.ServeAgent(t, withKey), testutil.ServeAgent(t, agent.NewKeyring())
	t.Setenv("SSH_AUTH_SOCK", agentSocket)
	key := keyLines(e.Sim.PrivateKeyPEM())
	config := e.driftHCL(cl.ID, fmt.Sprintf("  fail_on_drift = true\n  ssh = {\n    host_key = %q\n  }\n", e.HostKeyLine(cl.ID)))
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			// Neither private_key nor private_key_file: the agent signs.
			Config:           config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{keyInPlan{key: key}}},
			ConfigStateChecks: append(expectDriftFindings(), noKeyInState{key},
				expectDriftAttr("nodes_checked", knownvalue.Bool(true)),
				expectDriftAttr("ssh", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"private_key_file": knownvalue.Null(), "private_key": knownvalue.Null()}))),
		},
		{
			// An agent without the key cannot list the nodes: the gate fails closed.
			PreConfig:   func() { t.Setenv("SSH_AUTH_SOCK", emptySocket) },
			Config:      config,
			PlanOnly:    true,
			ExpectError: errorFragments("Cluster Drift Check Incomplete", "the SSH agent (SSH_AUTH_SOCK) holds no key"),
		},
		{
			// Without an agent, plan time says what is missing.
			PreConfig:   func() { t.Setenv("SSH_AUTH_SOCK", "") },
			Config:      config,
			PlanOnly:    true,
			ExpectError: errorFragments("Missing SSH Private Key", "private_key_file", "SSH_AUTH_SOCK is not set"),
		},
		{
			// The agent is back (the test's destroy validates the configuration too).
			PreConfig:         func() { t.Setenv("SSH_AUTH_SOCK", agentSocket) },
			Config:            config,
			ConfigStateChecks: expectDriftFindings(),
		},
	}})
}
