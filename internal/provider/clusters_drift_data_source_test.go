package provider

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
)

const fleetAddr = "data.cks_clusters_drift.test"

// expectFleetCluster checks fields of the nth cluster of the fleet check.
func expectFleetCluster(nth int, checks map[string]knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("clusters").AtSliceIndex(nth), knownvalue.ObjectPartial(checks))
}

func TestAccClustersDrift_Fleet(t *testing.T) {
	readsListsInAnyOrder(t)
	t.Parallel()
	e := newDriftEnv(t)
	a := e.NewCluster(cloudstack.CreateClusterParams{Name: "fleet-a", Size: 1})
	b := e.NewCluster(cloudstack.CreateClusterParams{Name: "fleet-b", Size: 2})
	c := e.NewCluster(cloudstack.CreateClusterParams{Name: "fleet-c", Size: 1})
	other := e.NewCluster(cloudstack.CreateClusterParams{Name: "other", Size: 1})
	worker := e.NthWorker(b, 1)
	if err := e.Sim.DeleteMapRow(b.ID, worker.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.SetClusterState(c.ID, "Upgrading"); err != nil {
		t.Fatal(err)
	}
	ssh := fmt.Sprintf("  ssh = {\n    private_key = file(%q)\n    known_hosts = %q\n  }\n", e.KeyFile,
		e.knownHostsFor(a.ID, b.ID, c.ID, other.ID))
	cluster := expectFleetCluster
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config: e.fleetHCL(ssh + "  name_regex = \"^fleet-\"\n  concurrency = 2\n  check_network_rules = false\n"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("in_sync"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("summary"),
					knownvalue.StringExact("3 clusters: 1 in sync, 1 drifted (2 findings: 1 unmapped_vm, 1 vm_map_inconsistent), 1 skipped")),
				statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("counts"),
					expectDriftCounts(map[string]int{drift.KindUnmappedVM: 1, drift.KindVMMapInconsistent: 1})),
				statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("clusters"), knownvalue.ListSizeExact(3)),
				cluster(0, map[string]knownvalue.Check{
					"id": knownvalue.StringExact(a.ID), "name": knownvalue.StringExact("fleet-a"),
					"account": knownvalue.StringExact("admin"), "project_id": knownvalue.Null(),
					"in_sync": knownvalue.Bool(true), "nodes_checked": knownvalue.Bool(true), "error": knownvalue.Null(),
					"findings": knownvalue.ListExact([]knownvalue.Check{}),
				}),
				cluster(1, map[string]knownvalue.Check{
					"name": knownvalue.StringExact("fleet-b"), "in_sync": knownvalue.Bool(false),
					"findings": knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"kind": knownvalue.StringExact(drift.KindUnmappedVM), "vm_id": knownvalue.StringExact(worker.ID)}),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"kind": knownvalue.StringExact(drift.KindVMMapInconsistent)}),
					}),
					"summary": knownvalue.StringExact("2 findings: 1 unmapped_vm, 1 vm_map_inconsistent"),
				}),
				cluster(2, map[string]knownvalue.Check{
					"name": knownvalue.StringExact("fleet-c"), "skipped": knownvalue.Bool(true),
					"cluster_state": knownvalue.StringExact("Upgrading"), "in_sync": knownvalue.Bool(false),
				}),
			},
		},
		{
			// Gate on the whole fleet.
			Config:      e.fleetHCL(ssh + "  name_regex = \"^fleet-\"\n  fail_on_drift = true\n"),
			PlanOnly:    true,
			ExpectError: errorFragments("Cluster Drift Detected", "fleet-b", "unmapped_vm: VM "+worker.Name),
		},
		{
			// The fleet without the drifted and the busy cluster is in sync.
			PreConfig: func() {
				if err := e.Sim.RestoreMapRow(b.ID, worker.ID); err != nil {
					t.Fatal(err)
				}
				if err := e.Sim.SetClusterState(c.ID, "Running"); err != nil {
					t.Fatal(err)
				}
			},
			Config: e.fleetHCL(ssh + "  fail_on_drift = true\n"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("summary"), knownvalue.StringExact("4 clusters: 4 in sync")),
				statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("node_source"), knownvalue.StringExact("ssh")),
			},
		},
	}})
}

// A cluster that could not be checked has its error, empty findings, zero
// counts and no state; a checked one has its result and a null error.
func TestClustersDriftValueOfCheckedAndUncheckedClusters(t *testing.T) {
	t.Parallel()
	fleet := driftcheck.Fleet{Clusters: []driftcheck.ClusterReport{
		{ID: "id-a", Name: "a", Account: "admin", Result: drift.Result{
			InSync: false, ClusterState: "Running", NodesChecked: true, Summary: "1 finding: 1 unmapped_vm",
			Findings: []drift.Finding{{Kind: drift.KindUnmappedVM, VMID: "vm-1", Message: "stray"}},
			Counts:   map[string]int{drift.KindUnmappedVM: 1},
		}},
		{ID: "id-b", Name: "b", ProjectID: "p-1", Err: errors.New("listVirtualMachines: 530")},
	}}
	list, diags := fleetClustersValue(context.Background(), fleet)
	if diags.HasError() {
		t.Fatalf("diagnostics: %v", diags)
	}
	var got []fleetClusterModel
	if d := list.ElementsAs(context.Background(), &got, false); d.HasError() {
		t.Fatalf("decoding: %v", d)
	}
	if len(got) != 2 {
		t.Fatalf("got %d clusters, want 2", len(got))
	}
	a, b := got[0], got[1]
	if a.ID.ValueString() != "id-a" || a.Account.ValueString() != "admin" || !a.ProjectID.IsNull() || !a.Error.IsNull() {
		t.Errorf("checked cluster identity: %+v", a)
	}
	if a.InSync.ValueBool() || a.ClusterState.ValueString() != "Running" || len(a.Findings.Elements()) != 1 ||
		a.Summary.ValueString() != "1 finding: 1 unmapped_vm" {
		t.Errorf("checked cluster result: %+v", a)
	}
	if b.Error.ValueString() != "listVirtualMachines: 530" || !b.Account.IsNull() || b.ProjectID.ValueString() != "p-1" {
		t.Errorf("unchecked cluster identity: %+v", b)
	}
	if !b.ClusterState.IsNull() || len(b.Findings.Elements()) != 0 || b.Summary.ValueString() != "not checked: listVirtualMachines: 530" {
		t.Errorf("unchecked cluster result: %+v", b)
	}
	if n := len(b.Counts.Elements()); n != len(drift.Kinds()) {
		t.Errorf("unchecked cluster has %d counts, want every kind (%d)", n, len(drift.Kinds()))
	}
}
