package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// The drift gate fails closed: with fail_on_drift, a check that could not
// compare every view it was asked for fails the plan unless allow_incomplete,
// and in_sync is never true for it. Each test first shows the drift the view
// reveals when it can be read, then takes the view away with the simulator's
// fault injection: before the change, those plans passed with in_sync = true,
// masking that drift.

// expectIncompleteNodes checks an incomplete check's outputs: not in
// sync, no finding, the nodes view missing for the reason given.
func expectIncompleteNodes(reason string) []statecheck.StateCheck {
	return []statecheck.StateCheck{
		expectDriftAttr("in_sync", knownvalue.Bool(false)),
		expectDriftAttr("findings", knownvalue.ListExact([]knownvalue.Check{})),
		expectDriftAttr("nodes_checked", knownvalue.Bool(false)),
		expectDriftAttr("incomplete_views", knownvalue.MapExact(map[string]knownvalue.Check{
			drift.ViewNodes: knownvalue.StringRegexp(regexp.MustCompile(reason))})),
		expectDriftAttr("summary", knownvalue.StringRegexp(regexp.MustCompile(
			`^incomplete: no finding in the views checked; Kubernetes nodes not checked: .*`+reason))),
		expectDriftAttr("allow_incomplete", knownvalue.Bool(true)),
	}
}

func TestAccClusterDrift_GateFailsClosedWhenSSHIsUnreachable(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2})
	worker := e.NthWorker(cl, 0)
	// Drift only the Kubernetes nodes show: a NotReady node.
	if err := e.Sim.StopKubelet(worker.ID, true); err != nil {
		t.Fatal(err)
	}
	gate := e.driftGateHCL(cl.ID, e.sshHCL(cl.ID))
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			// SSH works: the gate sees the drift and fails.
			Config:      gate,
			PlanOnly:    true,
			ExpectError: errorFragments("Cluster Drift Detected", "node_not_ready"),
		},
		{
			// SSH to control node 1 is refused: the drift is still there, the
			// gate cannot see it, so it fails instead of passing.
			PreConfig:   func() { e.DeleteForward(cl, 2222) },
			Config:      gate,
			PlanOnly:    true,
			ExpectError: errorFragments("Cluster Drift Check Incomplete", "cluster test ("+cl.ID+")", "in_sync is false", "Kubernetes nodes (nodes) not checked", cl.IPAddress+":2222", "connection refused", "allow_incomplete = true"),
		},
		{
			// The explicit opt-in lets it pass, reporting what is missing.
			Config:            e.driftGateHCL(cl.ID, e.sshHCL(cl.ID)+"  allow_incomplete = true\n"),
			ConfigStateChecks: expectIncompleteNodes("connection refused"),
		},
	}})
}

func TestAccClusterDrift_GateFailsClosedWhenTheKubernetesAPIFails(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2})
	if err := e.Sim.StopKubelet(e.NthWorker(cl, 0).ID, true); err != nil {
		t.Fatal(err)
	}
	gate := e.driftGateHCL(cl.ID, "  node_source = \"kubeconfig\"\n")
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config:      gate,
			PlanOnly:    true,
			ExpectError: errorFragments("Cluster Drift Detected", "node_not_ready"),
		},
		{
			// getKubernetesClusterConfig fails.
			PreConfig:   func() { e.Sim.FailNextCalls("getKubernetesClusterConfig", relNodeFaultCount, 530, "Injected failure") },
			Config:      gate,
			PlanOnly:    true,
			ExpectError: errorFragments("Cluster Drift Check Incomplete", "Kubernetes nodes (nodes) not checked", "getting the kubeconfig", "allow_incomplete = true"),
		},
		{
			// The Kubernetes API is down.
			PreConfig: func() {
				e.Sim.ClearFaults()
				e.Sim.FailNextKubeAPI(503, relNodeFaultCount)
			},
			Config:      gate,
			PlanOnly:    true,
			ExpectError: errorFragments("Cluster Drift Check Incomplete", "Kubernetes nodes (nodes) not checked", "kubernetes API", "503"),
		},
		{
			Config:            e.driftGateHCL(cl.ID, "  node_source = \"kubeconfig\"\n  allow_incomplete = true\n"),
			ConfigStateChecks: expectIncompleteNodes("kubernetes API .*503"),
		},
	}})
}

func TestAccClusterDrift_GateFailsClosedOnASkippedCluster(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 1})
	if err := e.Sim.SetClusterState(cl.ID, "Scaling"); err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config:      e.driftGateHCL(cl.ID, e.sshHCL(cl.ID)),
			PlanOnly:    true,
			ExpectError: errorFragments("Cluster Drift Check Skipped", "cluster test", "Scaling", "allow_incomplete = true"),
		},
		{
			Config: e.driftGateHCL(cl.ID, e.sshHCL(cl.ID)+"  allow_incomplete = true\n"),
			ConfigStateChecks: []statecheck.StateCheck{
				expectDriftAttr("in_sync", knownvalue.Bool(false)),
				expectDriftAttr("skipped", knownvalue.Bool(true)),
				expectDriftAttr("incomplete_views", knownvalue.MapSizeExact(0)),
			},
		},
	}})
}

// known_hosts is checked at plan time: an unparsable one used to leave the
// nodes unchecked and the gate passing. A known_hosts whose key for the
// node is wrong stays an error, allow_incomplete or not.
func TestAccClusterDrift_KnownHostsFailsClosed(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 1})
	other := e.NewCluster(cloudstack.CreateClusterParams{Name: "other", Size: 1})
	ssh := func(knownHosts string) string {
		return fmt.Sprintf("  ssh = {\n    private_key_file = %q\n    known_hosts = %q\n  }\n", e.KeyFile, knownHosts)
	}
	sessions := e.Sim.SSHSessions()
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config:      e.driftGateHCL(cl.ID, ssh("["+cl.IPAddress+"]:2222 "+e.HostKeyLine(cl.ID)[:20]+"\n")),
			PlanOnly:    true,
			ExpectError: errorFragments("Invalid SSH known_hosts", "known_hosts", "line 1:"),
		},
		{
			PreConfig: func() {
				if n := e.Sim.SSHSessions() - sessions; n != 0 {
					t.Fatalf("an unparsable known_hosts opened %d SSH sessions", n)
				}
			},
			Config:      e.driftGateHCL(cl.ID, ssh("["+cl.IPAddress+"]:2222 "+e.HostKeyLine(other.ID)+"\n")+"  allow_incomplete = true\n"),
			PlanOnly:    true,
			ExpectError: errorFragments("SSH Host Key Refused", "ssh.known_hosts does not accept", "host key mismatch"),
		},
		{
			Config: e.driftGateHCL(cl.ID, ssh("["+cl.IPAddress+"]:2222 "+e.HostKeyLine(cl.ID)+"\n")),
			ConfigStateChecks: append(expectDriftFindings(),
				expectDriftAttr("incomplete_views", knownvalue.MapSizeExact(0)),
				expectDriftAttr("nodes_checked", knownvalue.Bool(true))),
		},
	}})
}
