package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// The findings a platform team expects next, through both data sources: a
// kubelet on another version than its cluster, a VM resized out of band,
// and a cluster in Alert with nothing else wrong.
func TestAccDrift_NextFindingsThroughBothDataSources(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	skew := e.NewCluster(cloudstack.CreateClusterParams{Name: "nf-skew", Size: 1})
	resized := e.NewCluster(cloudstack.CreateClusterParams{Name: "nf-resized", Size: 1})
	alert := e.NewCluster(cloudstack.CreateClusterParams{Name: "nf-alert", Size: 1})
	skewed, big := e.NthWorker(skew, 0), e.NthWorker(resized, 0)
	if err := e.Sim.SetKubeletVersion(skewed.ID, "1.34.2"); err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.SetVMOffering(big.ID, e.Info.LargeServiceOfferingID); err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.SetClusterState(alert.ID, "Alert"); err != nil {
		t.Fatal(err)
	}
	hcl := ""
	for name, id := range map[string]string{"skew": skew.ID, "resized": resized.ID, "alert": alert.ID} {
		hcl += fmt.Sprintf("\ndata \"cks_cluster_drift\" %q {\n  cluster_id = %q\n  node_source = \"kubeconfig\"\n}\n", name, id)
	}
	hcl += "\ndata \"cks_clusters_drift\" \"test\" {\n  name_regex = \"^nf-\"\n  node_source = \"kubeconfig\"\n}\n"

	finding := func(kind string, fields map[string]knownvalue.Check) knownvalue.Check {
		fields["kind"] = knownvalue.StringExact(kind)
		return knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(fields)})
	}
	want := map[string]knownvalue.Check{
		"skew": finding(drift.KindNodeVersionSkew, map[string]knownvalue.Check{
			"vm_id": knownvalue.StringExact(skewed.ID), "node_name": knownvalue.StringExact(strings.ToLower(skewed.Name)),
			"message": driftContains("Kubernetes node "+strings.ToLower(skewed.Name), "not on Kubernetes 1.33.13",
				"its kubelet reports v1.34.2"),
		}),
		"resized": finding(drift.KindVMOfferingMismatch, map[string]knownvalue.Check{
			"vm_id": knownvalue.StringExact(big.ID), "vm_name": knownvalue.StringExact(big.Name),
			"message": driftContains("VM "+big.Name, "runs service offering", e.Info.LargeServiceOfferingID, "not the worker offering"),
		}),
		"alert": finding(drift.KindClusterStateUnexpected, map[string]knownvalue.Check{
			"vm_id":   knownvalue.Null(),
			"message": driftContains("cluster nf-alert is in Alert", "expunged or never existed"),
		}),
	}
	var checks []statecheck.StateCheck
	for i, name := range []string{"alert", "resized", "skew"} { // the fleet orders clusters by name
		checks = append(checks,
			statecheck.ExpectKnownValue("data.cks_cluster_drift."+name, tfjsonpath.New("findings"), want[name]),
			statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("clusters").AtSliceIndex(i).AtMapKey("findings"), want[name]))
	}
	checks = append(checks, statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("counts"), expectDriftCounts(map[string]int{
		drift.KindNodeVersionSkew: 1, drift.KindVMOfferingMismatch: 1, drift.KindClusterStateUnexpected: 1})))
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{Config: e.ProviderConfig(hcl), ConfigStateChecks: checks}}})
}
