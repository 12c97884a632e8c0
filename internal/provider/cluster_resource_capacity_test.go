package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// TestAccCluster_capacityFollowsTheNodes reads cores and memory as
// CloudStack accounts them: every node (control, etcd, worker) at the
// service offering. A change that asks nothing of CloudStack plans them
// known; a size change plans them unknown, and the apply records the new
// capacity.
func TestAccCluster_capacityFollowsTheNodes(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	offerings, err := env.API.ListServiceOfferings(t.Context(), cloudstack.ListServiceOfferingsParams{ZoneID: env.Info.ZoneID})
	if err != nil {
		t.Fatal(err)
	}
	var cpu, memory int64
	for _, o := range offerings {
		if o.ID == env.Info.ServiceOfferingID {
			cpu, memory = int64(o.CPUNumber), int64(o.Memory)
		}
	}
	if cpu == 0 || memory == 0 {
		t.Fatalf("service offering %s not listed with its cores and memory: %+v", env.Info.ServiceOfferingID, offerings)
	}
	config := func(size int, protected bool) string {
		return env.cluster("capacity").etcd(1).size(size).set("deletion_protection", protected).String()
	}
	capacity := func(nodes int64) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			expectAttr("cores", knownvalue.Int64Exact(nodes*cpu)),
			expectAttr("memory", knownvalue.Int64Exact(nodes*memory)),
		}
	}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{Config: config(1, false), ConfigStateChecks: capacity(3)},
			{
				Config: config(1, true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(clusterAddr, tfjsonpathOf("cores"), knownvalue.Int64Exact(3*cpu)),
					plancheck.ExpectKnownValue(clusterAddr, tfjsonpathOf("memory"), knownvalue.Int64Exact(3*memory)),
				}},
				ConfigStateChecks: capacity(3),
			},
			{
				Config: config(2, false),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue(clusterAddr, tfjsonpathOf("cores")),
					plancheck.ExpectUnknownValue(clusterAddr, tfjsonpathOf("memory")),
				}},
				ConfigStateChecks: capacity(4),
			},
		},
	})
}
