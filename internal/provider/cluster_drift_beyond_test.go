package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// Beyond the VM map: FQDN node names, etcd VMs, VMs of other clusters, and
// the network rule findings of a scale-down with separate etcd nodes after a
// scale-up (apache/cloudstack#14159).

func TestAccClusterDrift_FQDNNodeNames(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2})
	for _, vm := range cl.VirtualMachines {
		if err := e.Sim.RegisterNodeFQDN(vm.ID, ""); err != nil {
			t.Fatal(err)
		}
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		Config: e.driftHCL(cl.ID, e.sshHCL(cl.ID)),
		ConfigStateChecks: append(expectDriftFindings(),
			expectDriftAttr("nodes_checked", knownvalue.Bool(true))),
	}}})
}

func TestAccClusterDrift_EtcdVMsAreNotNodes(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t, simtest.WithOrderedList())
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", EtcdNodes: 3, Size: 1})
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		Config: e.driftHCL(cl.ID, e.sshHCL(cl.ID)),
		ConfigStateChecks: append(expectDriftFindings(),
			expectDriftAttr("nodes_checked", knownvalue.Bool(true))),
	}}})
}

func TestAccClusterDrift_VMMappedToAnotherCluster(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	a := e.NewCluster(cloudstack.CreateClusterParams{Name: "alpha", Size: 2})
	b := e.NewCluster(cloudstack.CreateClusterParams{Name: "beta", Size: 1})
	moved := e.NthWorker(a, 1)
	if err := e.Sim.DeleteMapRow(a.ID, moved.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.InsertMapRow(b.ID, moved.ID, simulator.MapRowSpec{}); err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		// Named as alpha's worker but in beta's map: not unmapped_vm. Its node
		// still sits in alpha's Kubernetes, which is drift of its own.
		Config: e.driftHCL(a.ID, e.sshHCL(a.ID)+"  check_network_rules = false\n"),
		ConfigStateChecks: append(expectDriftFindings(drift.KindNodeWithoutVM, drift.KindVMMapInconsistent),
			expectDriftFinding(0, map[string]knownvalue.Check{"node_name": knownvalue.StringExact(strings.ToLower(moved.Name))})),
	}}})
}

// etcdClusterScaledOnce is the cluster of apache/cloudstack#14159, created
// and scaled through the plain API: 1 control, 3 etcd, 1 worker in CKS's own
// rule layout on 4.22.1.1, scaled up to 2 workers once. Whether that scale
// armed CKS's single-port etcd rules is read from the server's list order
// (rules.ArmedEtcdRules), so the simulator lists in the real order here
// whatever order the suite runs in (or the given one).
func etcdClusterScaledOnce(t *testing.T, order ...string) (*simEnv, string) {
	t.Helper()
	e := newDriftEnv(t, simtest.WithProfile(simulator.Profile42211), simtest.WithListOrder(strings.Join(order, "")))
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "cks-etcd-minimal-20260912", EtcdNodes: 3, Size: 1})
	if err := e.Scale(cl.ID, 2); err != nil {
		t.Fatalf("scale to 2: %v", err)
	}
	return e, cl.ID
}

// TestAccClusterDrift_UntouchedCKSLayoutIsInSync checks a cluster CKS
// created and no scale touched: its single-port etcd rules come after the
// node SSH range, so its first scale is safe and the check is in sync, in
// the server's list order and reversed (the direction is read from the API
// rule, which CKS creates before the etcd rules). A shuffled list carries no order, so the
// verdict is not judged there (rules.ArmedEtcdRules reports a list that
// contradicts both directions as a hazard).
func TestAccClusterDrift_UntouchedCKSLayoutIsInSync(t *testing.T) {
	readsListsInAnyOrder(t)
	t.Parallel()
	for _, order := range []string{simulator.ListOrderReal, simulator.ListOrderReversed} {
		t.Run("order="+order, func(t *testing.T) {
			t.Parallel()
			e := newDriftEnv(t, simtest.WithProfile(simulator.Profile42211), simtest.WithListOrder(order))
			cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "untouched", EtcdNodes: 3, Size: 1})
			accTest(t, resource.TestCase{Steps: []resource.TestStep{{
				Config:            e.driftHCL(cl.ID, e.sshHCL(cl.ID)),
				ConfigStateChecks: expectDriftFindings(),
			}}})
		})
	}
}

func TestAccClusterDrift_ScaleHazardBeforeScaleDown(t *testing.T) {
	t.Parallel()
	for _, order := range []string{simulator.ListOrderReal, simulator.ListOrderReversed} {
		t.Run("order="+order, func(t *testing.T) { testScaleHazardBeforeScaleDown(t, order) })
	}
}

func testScaleHazardBeforeScaleDown(t *testing.T, order string) {
	t.Parallel()
	e, id := etcdClusterScaledOnce(t, order)
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		// The scale-up re-created the node range after the etcd firewall
		// rules: the next scale-down would revoke etcd rule 50000 instead.
		Config: e.driftHCL(id, e.sshHCL(id)),
		ConfigStateChecks: append(expectDriftFindings(drift.KindScaleHazard, drift.KindScaleHazard, drift.KindScaleHazard),
			expectDriftAttr("cluster_state", knownvalue.StringExact("Running")),
			expectDriftAttr("findings", knownvalue.ListPartial(map[int]knownvalue.Check{
				0: knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"rule_id": knownvalue.NotNull(),
					"message": driftContains("CKS etcd SSH firewall rule", "has a forward with the same ports to port 22", "#14159"),
				}),
			})),
		),
	}}})
}

// TestAccClusterDrift_ScaleDownBrokenByEtcdRulePick reads the cluster after
// the scale-down that #14159 breaks.
func TestAccClusterDrift_ScaleDownBrokenByEtcdRulePick(t *testing.T) {
	readsListsInAnyOrder(t)
	t.Parallel()
	e, id := etcdClusterScaledOnce(t)
	if err := e.Scale(id, 1); err == nil || !strings.Contains(err.Error(), "unable to update network rules") {
		t.Fatalf("scale to 1: %v, want the #14159 failure", err)
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		// Stale size, forwards 2222, 2223 and 50000 gone with the etcd
		// firewall rule 50000, the old node range left; and the next scale
		// would go wrong through 50001 and 50002. SSH to :2222 is gone.
		Config: e.driftHCL(id, e.sshHCL(id)),
		ConfigStateChecks: append(expectDriftFindings(drift.KindVMMapInconsistent,
			drift.KindSSHForwardMissing, drift.KindSSHForwardMissing, drift.KindSSHFirewallRangeMismatch,
			drift.KindEtcdSSHRuleMissing, drift.KindEtcdSSHRuleMissing, drift.KindScaleHazard, drift.KindScaleHazard),
			expectDriftAttr("cluster_state", knownvalue.StringExact("Alert")),
			expectDriftAttr("nodes_checked", knownvalue.Bool(false)),
			expectDriftAttr("node_check_error", driftContains(":2222", "connection refused")),
			expectDriftFinding(0, map[string]knownvalue.Check{
				"message": driftContains("cluster cks-etcd-minimal-20260912: its VM map holds 5 VM(s) with 1 worker(s), but its size (node_count) is 2", "node_count = 1")}),
			expectDriftFinding(1, map[string]knownvalue.Check{"message": driftContains("SSH port forward 2222 -> 22", "-control-", "is missing")}),
			expectDriftFinding(2, map[string]knownvalue.Check{"message": driftContains("SSH port forward 2223 -> 22", "-node-", "is missing")}),
			expectDriftFinding(3, map[string]knownvalue.Check{"message": driftContains("node SSH firewall range is 2222-2224, expected 2222-2223")}),
			expectDriftFinding(4, map[string]knownvalue.Check{"message": driftContains("etcd SSH port forward 50000 -> 22", "-etcd-1-", "is missing")}),
			expectDriftFinding(5, map[string]knownvalue.Check{"message": driftContains("etcd SSH firewall rule 50000", "-etcd-1-", "is missing")}),
		),
	}}})
}
