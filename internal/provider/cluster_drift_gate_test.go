package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

func TestAccClusterDrift_CIGateFailsThePlan(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2})
	worker := e.NthWorker(cl, 1)
	gate := e.driftHCL(cl.ID, e.sshHCL(cl.ID)+"  fail_on_drift = true\n  check_network_rules = false\n")
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			// In sync: the gate passes.
			Config: gate,
			ConfigStateChecks: append(expectDriftFindings(),
				expectDriftAttr("fail_on_drift", knownvalue.Bool(true))),
		},
		{
			// Drift: `terraform plan` fails, and the error lists the findings.
			PreConfig: func() {
				if err := e.Sim.DeleteMapRow(cl.ID, worker.ID); err != nil {
					t.Fatal(err)
				}
			},
			Config:   gate,
			PlanOnly: true,
			ExpectError: errorFragments("Cluster Drift Detected", "cluster test ("+cl.ID+")",
				"2 findings: 1 unmapped_vm, 1 vm_map_inconsistent", "- unmapped_vm: VM "+worker.Name,
				"- vm_map_inconsistent: cluster test: its VM map holds 2 VM(s) with 1 worker(s)", "node_count = 1", "fail_on_drift is true"),
		},
	}})
}

func TestAccClusterDrift_WrongHostKeyIsRefused(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 1})
	other := e.NewCluster(cloudstack.CreateClusterParams{Name: "other", Size: 1})
	wrong := e.HostKeyLine(other.ID)
	wrongFP := fingerprint(t, wrong)
	rightFP := fingerprint(t, e.HostKeyLine(cl.ID))
	knownHosts := fmt.Sprintf("[%s]:2222 %s\n", cl.IPAddress, e.HostKeyLine(cl.ID))
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config: e.driftHCL(cl.ID, fmt.Sprintf("  ssh = {\n    private_key = file(%q)\n    host_key = %q\n  }\n", e.KeyFile, wrong)),
			ExpectError: errorFragments("SSH Host Key Refused", "cluster test", cl.IPAddress+":2222",
				"ssh.host_key does not accept", "host key mismatch", "got "+rightFP, "expected "+wrongFP),
		},
		{
			// The right key through known_hosts is accepted.
			Config: e.driftHCL(cl.ID, fmt.Sprintf("  ssh = {\n    private_key = file(%q)\n    known_hosts = %q\n  }\n", e.KeyFile, knownHosts)),
			ConfigStateChecks: append(expectDriftFindings(),
				expectDriftAttr("nodes_checked", knownvalue.Bool(true))),
		},
	}})
}

func fingerprint(t *testing.T, authorizedKey string) string {
	t.Helper()
	key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(authorizedKey))
	if err != nil {
		t.Fatal(err)
	}
	return ssh.FingerprintSHA256(key)
}

func TestAccClusterDrift_KubeconfigListsNodesThroughTheKubernetesAPI(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2})
	worker := e.NthWorker(cl, 0)
	if err := e.Sim.StopKubelet(worker.ID, true); err != nil { // the node stays, NotReady
		t.Fatal(err)
	}
	sessions := e.Sim.SSHSessions()
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		Config: e.driftHCL(cl.ID, "  node_source = \"kubeconfig\"\n"),
		ConfigStateChecks: append(expectDriftFindings(drift.KindNodeNotReady),
			expectDriftAttr("nodes_checked", knownvalue.Bool(true)),
			expectDriftFinding(0, map[string]knownvalue.Check{
				"node_name": knownvalue.StringExact(strings.ToLower(worker.Name)),
				"vm_id":     knownvalue.StringExact(worker.ID),
			}),
		),
		Check: func(*terraform.State) error {
			if n := e.Sim.SSHSessions() - sessions; n != 0 {
				return fmt.Errorf("kubeconfig mode opened %d SSH sessions", n)
			}
			return nil
		},
	}}})
}

// TestAccClusterDrift_CostPerCheck counts, through the simulator, what each
// read of the data source costs: Terraform reads it several times per step
// (plan, apply, refresh), and each read makes exactly one cluster lookup,
// one VM list and one list of each rule kind (the load balancer rules for
// the api_rule_missing finding).
func TestAccClusterDrift_CostPerCheck(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t, simtest.WithOrderedList())
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", EtcdNodes: 1, Size: 2})
	var sessions int64
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		PreConfig: func() {
			e.Sim.ResetCallCounts()
			sessions = e.Sim.SSHSessions()
		},
		Config:            e.driftHCL(cl.ID, e.sshHCL(cl.ID)),
		ConfigStateChecks: expectDriftFindings(),
		Check: func(*terraform.State) error {
			calls := e.Sim.CallCounts()
			reads := calls["listKubernetesClusters"]
			total := int64(0)
			for _, n := range calls {
				total += n
			}
			ssh := e.Sim.SSHSessions() - sessions
			if reads == 0 || total > 5*reads || ssh != reads {
				return fmt.Errorf("%d checks made %d CloudStack requests (%v) and %d SSH sessions; want at most 5 requests and one session each",
					reads, total, calls, ssh)
			}
			for _, cmd := range []string{"listVirtualMachines", "listFirewallRules", "listPortForwardingRules", "listLoadBalancerRules"} {
				if calls[cmd] != reads {
					return fmt.Errorf("%s was called %d times for %d checks: %v", cmd, calls[cmd], reads, calls)
				}
			}
			return nil
		},
	}}})
}
