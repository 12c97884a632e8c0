package provider

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// Rows of relFaultTable where the Kubernetes side fails during a drift
// read: the node check must report the failure, and the VM comparison must
// still run. A stray VM named like a worker, in no VM map, exists while the
// fault lasts, so that the comparison has something to find.

// relNodeFault injects a node-side fault (arm) for a drift read with the
// given node source; the node check's error must match wantError. Then it
// clears the fault (disarm) and expunges the stray VM: the next read checks
// the nodes again and finds the cluster in sync.
func relNodeFault(nodeSource, wantError string, arm, disarm func(*relScenario)) func(*relScenario) []resource.TestStep {
	return func(sc *relScenario) []resource.TestStep {
		e := sc.drift
		if sc.driftClusterID == "" {
			sc.driftClusterID = e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2}).ID
		}
		id := sc.driftClusterID
		body := "  node_source = \"kubeconfig\"\n"
		if nodeSource == "ssh" {
			body = e.sshHCL(id)
		}
		config := e.driftHCL(id, body)
		var strayID string
		return []resource.TestStep{
			{
				PreConfig: func() {
					var err error
					if strayID, _, err = e.Sim.CreateStrayVM(simulator.StrayVM{ClusterID: id}); err != nil {
						sc.t.Fatal(err)
					}
					arm(sc)
				},
				Config: config,
				ConfigStateChecks: append(expectDriftFindings(drift.KindUnmappedVM),
					expectDriftAttr("node_source", knownvalue.StringExact(nodeSource)),
					expectDriftAttr("nodes_checked", knownvalue.Bool(false)),
					relNodeCheckErrorOf(wantError),
					expectDriftAttr("cluster_state", knownvalue.StringExact("Running")),
				),
			},
			{
				PreConfig: func() {
					disarm(sc)
					if err := e.Sim.ExpungeVM(strayID); err != nil {
						sc.t.Fatal(err)
					}
				},
				Config: config,
				ConfigStateChecks: append(expectDriftFindings(),
					expectDriftAttr("nodes_checked", knownvalue.Bool(true)),
					expectDriftAttr("node_check_error", knownvalue.Null()),
				),
			},
		}
	}
}

// relNodeFaultCount outlasts every read Terraform makes in a step (plan,
// apply, the refresh plans after it).
const relNodeFaultCount = 1000

var (
	relSSHDropped = relNodeFault("ssh", `^ssh 127\.[0-9.]+:2222: connection closed before "sudo /opt/bin/kubectl get nodes -o json" reported an exit status$`,
		func(sc *relScenario) { sc.env.Sim.DropNextSSHCommands(relNodeFaultCount) },
		func(sc *relScenario) { sc.env.Sim.DropNextSSHCommands(0) })
	relKubeAPI500 = relNodeFault("kubeconfig", `^kubernetes API https://127\.[0-9.]+:6443: listing nodes: HTTP 500 Internal Server Error`,
		func(sc *relScenario) { sc.env.Sim.FailNextKubeAPI(500, relNodeFaultCount) },
		func(sc *relScenario) { sc.env.Sim.FailNextKubeAPI(0, 0) })
)

// relNodeCheckErrorOf is the state check of the node check's error text.
func relNodeCheckErrorOf(pattern string) statecheck.StateCheck {
	return expectDriftAttr("node_check_error", knownvalue.StringRegexp(regexp.MustCompile(pattern)))
}
