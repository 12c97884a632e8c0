package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// The fleet gate fails closed cluster by cluster: a cluster whose nodes could
// not be listed, one that was skipped and one that could not be read at all
// each fail fail_on_drift unless allow_incomplete; a refused host key fails
// the run in any case, as for one cluster. Before the change, each of these
// plans passed.

func fleetCluster(i int, checks map[string]knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("clusters").AtSliceIndex(i), knownvalue.ObjectPartial(checks))
}

func fleetAttr(name string, check knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New(name), check)
}

func TestAccClustersDrift_GateFailsClosedClusterByCluster(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	a := e.NewCluster(cloudstack.CreateClusterParams{Name: "fleet-a", Size: 1})
	b := e.NewCluster(cloudstack.CreateClusterParams{Name: "fleet-b", Size: 1})
	c := e.NewCluster(cloudstack.CreateClusterParams{Name: "fleet-c", Size: 1})
	ssh := fmt.Sprintf("  ssh = {\n    private_key_file = %q\n    known_hosts = %q\n  }\n", e.KeyFile, e.knownHostsFor(a.ID, b.ID, c.ID))
	gate := func(extra string) string {
		return e.fleetHCL(ssh + "  fail_on_drift = true\n  check_network_rules = false\n" + extra)
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			// Every cluster checked and in sync: the gate passes.
			Config: gate(""),
			ConfigStateChecks: []statecheck.StateCheck{
				fleetAttr("in_sync", knownvalue.Bool(true)),
				fleetAttr("summary", knownvalue.StringExact("3 clusters: 3 in sync")),
				fleetCluster(1, map[string]knownvalue.Check{"incomplete_views": knownvalue.MapSizeExact(0)}),
			},
		},
		{
			// fleet-b's SSH is refused and fleet-c is busy: neither is known
			// to be in sync, so the gate fails on both.
			PreConfig: func() {
				e.DeleteForward(b, 2222)
				if err := e.Sim.SetClusterState(c.ID, "Upgrading"); err != nil {
					t.Fatal(err)
				}
			},
			Config:   gate(""),
			PlanOnly: true,
			ExpectError: errorFragments("Cluster Drift Check Skipped", "fleet-c", "Upgrading", "allow_incomplete = true",
				"Cluster Drift Check Incomplete", "fleet-b", "Kubernetes nodes (nodes) not checked", "connection refused", "allow_incomplete = true"),
		},
		{
			// The opt-in lets them pass, and the outputs say what is missing.
			Config: gate("  allow_incomplete = true\n"),
			ConfigStateChecks: []statecheck.StateCheck{
				fleetAttr("in_sync", knownvalue.Bool(false)),
				fleetAttr("summary", knownvalue.StringExact("3 clusters: 1 in sync, 1 incomplete (views not checked: 1 nodes), 1 skipped")),
				fleetCluster(0, map[string]knownvalue.Check{"name": knownvalue.StringExact("fleet-a"), "in_sync": knownvalue.Bool(true),
					"incomplete_views": knownvalue.MapSizeExact(0)}),
				fleetCluster(1, map[string]knownvalue.Check{"name": knownvalue.StringExact("fleet-b"), "in_sync": knownvalue.Bool(false),
					"findings": knownvalue.ListExact([]knownvalue.Check{}),
					"incomplete_views": knownvalue.MapExact(map[string]knownvalue.Check{
						drift.ViewNodes: knownvalue.StringRegexp(regexp.MustCompile(regexp.QuoteMeta(b.IPAddress+":2222") + ".*connection refused"))})}),
				fleetCluster(2, map[string]knownvalue.Check{"name": knownvalue.StringExact("fleet-c"), "skipped": knownvalue.Bool(true),
					"in_sync": knownvalue.Bool(false)}),
			},
		},
		{
			// A CloudStack error on the clusters: not checked, so the gate fails.
			PreConfig:   func() { e.Sim.FailNextCalls("listVirtualMachines", relNodeFaultCount, 530, "Injected failure") },
			Config:      gate("  name_regex = \"^fleet-a$\"\n"),
			PlanOnly:    true,
			ExpectError: errorFragments("Clusters Not Checked", "fleet-a", "Injected failure", "allow_incomplete = true"),
		},
		{
			Config: gate("  name_regex = \"^fleet-a$\"\n  allow_incomplete = true\n"),
			ConfigStateChecks: []statecheck.StateCheck{
				fleetAttr("in_sync", knownvalue.Bool(false)),
				fleetAttr("summary", knownvalue.StringExact("1 cluster: 0 in sync, 1 not checked because of errors")),
				fleetCluster(0, map[string]knownvalue.Check{"error": knownvalue.StringRegexp(regexp.MustCompile("Injected failure")),
					"in_sync": knownvalue.Bool(false), "incomplete_views": knownvalue.MapSizeExact(0)}),
			},
		},
	}})
}

// A wrong host key for one cluster of a fleet is refused loudly, as for
// one cluster: an error against ssh.known_hosts naming the cluster, with
// or without the gate and whatever allow_incomplete says.
func TestAccClustersDrift_WrongHostKeyFailsTheRun(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	a := e.NewCluster(cloudstack.CreateClusterParams{Name: "fleet-a", Size: 1})
	b := e.NewCluster(cloudstack.CreateClusterParams{Name: "fleet-b", Size: 1})
	wrong := fmt.Sprintf("[%s]:2222 %s\n[%s]:2222 %s\n", a.IPAddress, e.HostKeyLine(a.ID), b.IPAddress, e.HostKeyLine(a.ID))
	missing := fmt.Sprintf("[%s]:2222 %s\n", a.IPAddress, e.HostKeyLine(a.ID))
	ssh := func(knownHosts string) string {
		return fmt.Sprintf("  ssh = {\n    private_key_file = %q\n    known_hosts = %q\n  }\n", e.KeyFile, knownHosts)
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config:   e.fleetHCL(ssh(wrong)),
			PlanOnly: true,
			ExpectError: errorFragments("SSH Host Key Refused", "ssh.known_hosts does not accept", "cluster fleet-b ("+b.ID+") at "+b.IPAddress+":2222",
				"host key mismatch", "whatever fail_on_drift and allow_incomplete say"),
		},
		{
			Config:      e.fleetHCL(ssh(wrong) + "  fail_on_drift = true\n  allow_incomplete = true\n"),
			PlanOnly:    true,
			ExpectError: errorFragments("SSH Host Key Refused", "fleet-b", "host key mismatch"),
		},
		{
			// A cluster missing from known_hosts is refused the same way.
			Config:      e.fleetHCL(ssh(missing) + "  fail_on_drift = true\n"),
			PlanOnly:    true,
			ExpectError: errorFragments("SSH Host Key Refused", "fleet-b", "known_hosts has no entry for this host"),
		},
	}})
}
