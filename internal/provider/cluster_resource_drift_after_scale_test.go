package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// clusterDriftHCL reads cks_cluster_drift on cks_cluster.test, network
// rules included, failing the plan on any drift.
const clusterDriftHCL = `
data "cks_cluster_drift" "test" {
  cluster_id    = cks_cluster.test.id
  node_source   = "none"
  fail_on_drift = true
}
`

// TestAccCluster_driftInSyncAfterEveryScale scales a cluster with separate
// etcd nodes through the provider and then through the plain API, as any
// other client may, and reads cks_cluster_drift after each with the CI gate
// on: it stays in sync, with no scale_hazard, and no apply has anything to
// repair, because the etcd SSH range the provider keeps is one no scale can
// pick, whoever runs it.
func TestAccCluster_driftInSyncAfterEveryScale(t *testing.T) {
	t.Parallel()
	for _, profile := range simulator.Profiles() {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			env := newSimEnv(t, simtest.WithProfile(profile))
			var id string
			accTest(t, resource.TestCase{
				CheckDestroy: env.expectNothingLeft,
				Steps: []resource.TestStep{
					{
						Config: env.etcdCluster(3, 1).String(),
						Check:  recordClusterID(&id),
					},
					{
						Config:            env.etcdCluster(3, 2).String() + clusterDriftHCL,
						ConfigStateChecks: expectDriftFindings(),
						Check:             env.checkCluster(t, clusterAddr, 2, etcdFirewalls(2, 3)),
					},
					{
						PreConfig: func() { env.scaleOutOfBand(t, id, 1) },
						Config:    env.etcdCluster(3, 1).String() + clusterDriftHCL,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionNoop),
						}},
						ConfigStateChecks: append(expectDriftFindings(), expectAttr("ssh_rules_in_sync", knownvalue.Bool(true))),
						Check:             env.checkCluster(t, clusterAddr, 1, etcdFirewalls(1, 3)),
					},
				},
			})
		})
	}
}
