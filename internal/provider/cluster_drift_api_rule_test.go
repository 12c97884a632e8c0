package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// TestAccDrift_WidenedAPIRule checks a cluster whose API rule the provider
// narrowed (api_cidrs): in sync when the check is given the same CIDRs, a
// mismatch naming the advice when it is not, and a widened rule added by
// someone else is reported and fails the gate.
func TestAccDrift_WidenedAPIRule(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	c := e.NewCluster(cloudstack.CreateClusterParams{Name: "api-wide", Size: 1})
	var narrowID string
	for _, fw := range e.FirewallRulesOn(c.IPAddressID) {
		if fw.StartPort == 6443 {
			if err := e.Sim.DeleteRule(fw.ID); err != nil {
				t.Fatal(err)
			}
			narrowID = e.addFirewall(t, c.IPAddressID, 6443, 6443, "127.0.0.0/8")
		}
	}
	if narrowID == "" {
		t.Fatal("the cluster has no API firewall rule")
	}
	var wideID string
	narrow := "  node_source = \"none\"\n  api_cidrs = [\"127.0.0.0/8\"]\n"
	mismatch := func(id *string, parts ...string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(driftAddr, tfjsonpath.New("findings"), knownvalue.ListExact([]knownvalue.Check{
			knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"kind": knownvalue.StringExact(drift.KindAPIRuleMismatch), "rule_id": knownvalue.StringFunc(func(v string) error {
					if v != *id {
						return fmt.Errorf("rule_id %s, want %s", v, *id)
					}
					return nil
				}), "message": driftContains(parts...),
			})}))
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{Config: e.driftHCL(c.ID, narrow), ConfigStateChecks: expectDriftFindings()},
		{
			Config: e.driftHCL(c.ID, "  node_source = \"none\"\n"),
			ConfigStateChecks: append(expectDriftFindings(drift.KindAPIRuleMismatch),
				mismatch(&narrowID, "opens 6443 to 127.0.0.0/8, not to 0.0.0.0/0", "give the check the same")),
		},
		{
			PreConfig: func() { wideID = e.addFirewall(t, c.IPAddressID, 6443, 6443, "0.0.0.0/0") },
			Config:    e.driftHCL(c.ID, narrow),
			ConfigStateChecks: append(expectDriftFindings(drift.KindAPIRuleMismatch),
				mismatch(&wideID, "API firewall rule 6443 is open to 0.0.0.0/0, expected 127.0.0.0/8")),
		},
		{
			Config:      e.driftHCL(c.ID, narrow+"  fail_on_drift = true\n"),
			ExpectError: errorFragments("api_rule_mismatch"),
		},
	}})
}
