package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// driftInSyncConfig is, for every profile, a cluster with 3 etcd nodes and
// size workers and, when withDrift, cks_cluster_drift on it, network rules
// included, failing the plan on any drift.
func driftInSyncConfig(envs []profileEnv, size int, withDrift bool) string {
	hcl := profileProviders(envs)
	for _, p := range envs {
		hcl += p.etcdCluster(3, size).named(p.label).via(p).String()
		if withDrift {
			hcl += fmt.Sprintf(`
data "cks_cluster_drift" %[1]q {
  provider      = %[2]s
  cluster_id    = cks_cluster.%[1]s.id
  node_source   = "none"
  fail_on_drift = true
}
`, p.label, p.provider)
		}
	}
	return hcl
}

// TestAccCluster_driftInSyncAfterEveryScale scales a cluster with separate
// etcd nodes through the provider and then through the plain API, as any
// other client may, and reads cks_cluster_drift after each with the CI gate
// on: it stays in sync, with no scale_hazard, and no apply has anything to
// repair, because the etcd SSH range the provider keeps is one no scale can
// pick, whoever runs it. Every profile's cluster is in one configuration,
// through its profile's simulator.
func TestAccCluster_driftInSyncAfterEveryScale(t *testing.T) {
	t.Parallel()
	envs := newProfileEnvs(t)
	ids := map[string]string{}
	var recordIDs, checkScaledUp, checkScaledDown []resource.TestCheckFunc
	var driftChecks, driftAfterOutOfBand []statecheck.StateCheck
	var noops []plancheck.PlanCheck
	for _, p := range envs {
		addr := "cks_cluster." + p.label
		recordIDs = append(recordIDs, withIDAt(addr, func(id string) { ids[p.profile] = id }))
		checkScaledUp = append(checkScaledUp, p.checkCluster(t, addr, 2, etcdFirewalls(2, 3)))
		checkScaledDown = append(checkScaledDown, p.checkCluster(t, addr, 1, etcdFirewalls(1, 3)))
		driftChecks = append(driftChecks, expectDriftFindingsAt("data.cks_cluster_drift."+p.label)...)
		driftAfterOutOfBand = append(driftAfterOutOfBand, expectDriftFindingsAt("data.cks_cluster_drift."+p.label)...)
		driftAfterOutOfBand = append(driftAfterOutOfBand,
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("ssh_rules_in_sync"), knownvalue.Bool(true)))
		noops = append(noops, plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop))
	}
	accTest(t, profileTestCase(envs, resource.TestCase{
		CheckDestroy: expectNothingLeftOn(envs),
		Steps: []resource.TestStep{
			{
				Config: driftInSyncConfig(envs, 1, false),
				Check:  resource.ComposeAggregateTestCheckFunc(recordIDs...),
			},
			{
				Config:            driftInSyncConfig(envs, 2, true),
				ConfigStateChecks: driftChecks,
				Check:             resource.ComposeAggregateTestCheckFunc(checkScaledUp...),
			},
			{
				PreConfig: func() {
					for _, p := range envs {
						p.scaleOutOfBand(t, ids[p.profile], 1)
					}
				},
				Config:            driftInSyncConfig(envs, 1, true),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: noops},
				ConfigStateChecks: driftAfterOutOfBand,
				Check:             resource.ComposeAggregateTestCheckFunc(checkScaledDown...),
			},
		},
	}))
}
