package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
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

// TestAccCluster_noHazardLeftAfterScale scales seed 000's cluster through
// the provider, then reads cks_cluster_drift: it is in sync, with no
// scale_hazard, because the provider moved the etcd firewall rules after the
// node SSH range the server's rebuild re-created. So any other client may
// scale next: a plain API scale-down on 4.22.1.1, which #14159 breaks
// otherwise, succeeds. That scale's own rebuild leaves a hazard again,
// which the next refresh notices and apply repairs.
func TestAccCluster_noHazardLeftAfterScale(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{"4.22.1.1", "fixed"} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			env := newSimEnv(t, withProfile(profile))
			var id string
			accTest(t, resource.TestCase{
				CheckDestroy: env.expectNothingLeft,
				Steps: []resource.TestStep{
					{
						Config: env.etcdClusterConfig(t, 3, 1, ""),
						Check: func(s *terraform.State) error {
							var err error
							id, err = clusterID(s)
							return err
						},
					},
					{
						Config: env.etcdClusterConfig(t, 3, 2, ""),
						Check:  env.checkCluster(t, 2, []string{"2222-2224", "50000", "50001", "50002", "6443"}),
					},
					{
						Config: env.etcdClusterConfig(t, 3, 2, "") + clusterDriftHCL,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionNoop),
						}},
						ConfigStateChecks: expectDriftFindings(),
					},
					{
						PreConfig: func() {
							ctx := context.Background()
							api := env.apiClient(t)
							size := int64(1)
							ref, err := api.ScaleKubernetesCluster(ctx, cloudstack.ScaleClusterParams{ID: id, Size: &size})
							if err == nil {
								_, err = cloudstack.WaitForJob(ctx, api, ref.JobID, clusterJobWait)
							}
							if err != nil {
								t.Fatalf("a plain API scale-down after the provider's scale failed: %v", err)
							}
						},
						Config: env.etcdClusterConfig(t, 3, 1, ""),
						// The server's scale re-created the node SSH range after
						// the etcd firewall rules again: the refresh sees the
						// hazard (ssh_rules_in_sync false) and apply moves them
						// after the range, leaving the next plan empty.
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
							plancheck.ExpectKnownValue(clusterAddr, tfjsonpathOf("ssh_rules_in_sync"), knownvalue.Bool(true)),
						}},
						ConfigStateChecks: []statecheck.StateCheck{expectAttr("ssh_rules_in_sync", knownvalue.Bool(true))},
						Check:             env.checkCluster(t, 1, []string{"2222-2223", "50000", "50001", "50002", "6443"}),
					},
				},
			})
		})
	}
}
