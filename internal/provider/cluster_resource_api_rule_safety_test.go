package provider

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// The API rule the provider owns goes through the same rules as its SSH
// rules: a blocked change keeps the working rule, a rule it made stays its
// own after a failure and a revert, a rule of someone else's that opens the
// API wider is named, and CloudStack's destroy never costs a user's rule.

// apiCIDRsConfig is a cluster with api_cidrs and, with a drift check, a
// cks_cluster_drift given the same CIDRs.
func apiCIDRsConfig(e *simEnv, name, cidrs string, withDrift bool) string {
	c := e.cluster(name).keypair().set("api_cidrs", hcl(cidrs))
	if withDrift {
		c = c.with(fmt.Sprintf("\ndata \"cks_cluster_drift\" \"test\" {\n  cluster_id  = cks_cluster.test.id\n  node_source = \"none\"\n"+
			"  api_cidrs   = %s\n}\n", cidrs))
	}
	return c.String()
}

// TestAccCluster_apiCIDRsChangeBlockedByAUserRule: another client's rule on
// 6443 conflicts with the API rule a new api_cidrs asks for. The plan says
// so, names the rule kept, and the apply deletes nothing: the API stays
// open to the old CIDRs and ssh_rules_in_sync is false, with an empty plan
// after. Once the user's rule goes, the next apply makes the change, the
// new rule first.
func TestAccCluster_apiCIDRsChangeBlockedByAUserRule(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	rec := &diagRecorder{}
	var id, userRule string
	config := func(cidrs string) string { return apiCIDRsConfig(env, "api-blocked", cidrs, false) }
	wanted := `["10.0.0.0/8", "127.0.0.2/32"]`
	accTest(t, resource.TestCase{
		ProtoV6ProviderFactories: rec.factories(),
		CheckDestroy:             env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: config(`["127.0.0.1/32"]`),
				Check:  resource.ComposeTestCheckFunc(recordClusterID(&id), env.expectAPIRules(&id, "[127.0.0.1/32]")),
			},
			{
				PreConfig: func() {
					userRule = env.addFirewall(t, env.Cluster(id).IPAddressID, 6443, 6443, "10.0.0.0/8")
					rec.reset()
				},
				Config: config(wanted),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("ssh_rules_in_sync"), knownvalue.Bool(false)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("ssh_rules_in_sync", knownvalue.Bool(false))},
				Check: resource.ComposeTestCheckFunc(
					env.expectAPIRules(&id, "[127.0.0.1/32]", "[10.0.0.0/8]"),
					func(s *terraform.State) error {
						return rec.expect("Cluster SSH Rules Blocked", "not create API firewall rule 6443", "conflict with rule "+userRule,
							"API firewall rule 6443 from 127.0.0.1/32) stays until then")(s)
					},
					func(s *terraform.State) error {
						return rec.expect("Cluster SSH Rules Need Attention", "could not create missing API firewall rule 6443",
							"stays until then")(s)
					},
				),
			},
			{
				PreConfig: func() {
					if err := env.Sim.DeleteRule(userRule); err != nil {
						t.Fatal(err)
					}
				},
				Config: config(wanted),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("ssh_rules_in_sync"), knownvalue.Bool(true)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: env.expectAPIRules(&id, "[10.0.0.0/8 127.0.0.2/32]"),
			},
		},
	})
}

// TestAccCluster_apiCIDRsFailedNarrowingThenRevert: a change of api_cidrs
// whose delete of the old rule fails leaves both rules; reverting the
// configuration then plans the removal of the rule the failed apply made,
// which the provider still knows as its own, and the drift check with the
// same api_cidrs reports it until then. Afterwards only the reverted rule
// is left, and plans are empty.
func TestAccCluster_apiCIDRsFailedNarrowingThenRevert(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	var id string
	reverted := `["127.0.0.1/32"]`
	// The fleet check names no resource, so the plan reads it even while
	// the cluster has a change pending.
	revertedWithDrift := apiCIDRsConfig(env, "api-revert", reverted, false) + "\ndata \"cks_clusters_drift\" \"test\" {\n" +
		"  name_regex  = \"^api-revert$\"\n  node_source = \"none\"\n  api_cidrs   = " + reverted + "\n}\n"
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: apiCIDRsConfig(env, "api-revert", reverted, false),
				Check:  resource.ComposeTestCheckFunc(recordClusterID(&id), env.expectAPIRules(&id, "[127.0.0.1/32]")),
			},
			{
				PreConfig:   func() { env.Sim.FailNextCalls("deleteFirewallRule", 5, 530, "") },
				Config:      apiCIDRsConfig(env, "api-revert", `["127.0.0.0/8"]`, false),
				ExpectError: errorFragments("Cluster Operation Failed", "deleting API firewall rule 6443"),
			},
			{
				PreConfig: func() {
					env.Sim.ClearFaults()
					if got := env.apiRules(id); !slices.Equal(got, []string{"[127.0.0.0/8]", "[127.0.0.1/32]"}) {
						t.Fatalf("API rules after the failed change: %v", got)
					}
				},
				Config: revertedWithDrift,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("ssh_rules_in_sync"), knownvalue.Bool(true)),
						// The drift check, read with the plan, before the apply.
						expectPlanDriftFinding{kind: drift.KindAPIRuleMismatch, fleet: true,
							parts: []string{"opens 6443 to 127.0.0.0/8", "outside api_cidrs 127.0.0.1/32"}},
					},
				},
				Check: env.expectAPIRules(&id, "[127.0.0.1/32]"),
			},
			{
				Config:           revertedWithDrift,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("ssh_rules_in_sync", knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
				},
			},
		},
	})
}

// TestAccCluster_foreignAPIRulesWiderThanAPICIDRs: rules of another client
// on 6443 beside the narrowed one that admit other addresses, whatever
// their strings (0.0.0.0/0 beside a /8, two /1 halves): the plan changes
// nothing and never deletes them, every refresh names them in a warning
// on api_cidrs, and the drift check with the same api_cidrs reports them.
func TestAccCluster_foreignAPIRulesWiderThanAPICIDRs(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	rec := &diagRecorder{}
	var id, foreign string
	config := apiCIDRsConfig(env, "api-foreign", `["127.0.0.1/32"]`, true)
	replaceForeign := func(cidrs ...string) func() {
		return func() {
			if foreign != "" {
				if err := env.Sim.DeleteRule(foreign); err != nil {
					t.Fatal(err)
				}
			}
			foreign = env.addFirewall(t, env.Cluster(id).IPAddressID, 6443, 6443, cidrs...)
			rec.reset()
		}
	}
	wider := func(cidrs, outside string) resource.TestStep {
		return resource.TestStep{
			PreConfig:        replaceForeign(strings.Split(cidrs, ",")...),
			Config:           config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: append(expectDriftFindings(drift.KindAPIRuleMismatch),
				expectDriftFinding(0, map[string]knownvalue.Check{"message": driftContains("opens 6443 to "+cidrs,
					"which admits "+outside+", outside api_cidrs 127.0.0.1/32")})),
			Check: resource.ComposeTestCheckFunc(
				func(s *terraform.State) error {
					return rec.expect("Cluster Open Beyond api_cidrs", "Firewall rule "+foreign, "from "+cidrs,
						"outside api_cidrs = [127.0.0.1/32] ("+outside+", for one)", "never deletes it")(s)
				},
				env.expectAPIRules(&id, "[127.0.0.1/32]", "["+strings.ReplaceAll(cidrs, ",", " ")+"]"),
			),
		}
	}
	accTest(t, resource.TestCase{
		ProtoV6ProviderFactories: rec.factories(),
		Steps: []resource.TestStep{
			{
				Config:            config,
				ConfigStateChecks: expectDriftFindings(),
				Check:             resource.ComposeTestCheckFunc(recordClusterID(&id), rec.expectNone("Cluster Open Beyond api_cidrs")),
			},
			wider("0.0.0.0/0,10.0.0.0/8", "0.0.0.0/2"),
			wider("0.0.0.0/1,128.0.0.0/1", "0.0.0.0/2"),
			{
				PreConfig: func() {
					if err := env.Sim.DeleteRule(foreign); err != nil {
						t.Fatal(err)
					}
					rec.reset()
				},
				Config:            config,
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: expectDriftFindings(),
				Check:             rec.expectNone("Cluster Open Beyond api_cidrs"),
			},
		},
	})
}

// userNetworkAPIConfig is a cluster on the seeded isolated network, which
// a user's own rules share, with api_cidrs when given.
func userNetworkAPIConfig(e *simEnv, cidrs string) string {
	c := e.etcdCluster(1, 1).on(e.Info.IsolatedNetworkID)
	if cidrs != "" {
		c = c.set("api_cidrs", hcl(cidrs))
	}
	return c.String()
}

// TestAccCluster_destroyRestoresTheUserAPIRule: on a network the user gave,
// a user's TCP rule on 6443 predates the API rule the provider re-created
// for api_cidrs. CloudStack's destroy revokes the first TCP rule on exactly
// 6443 in an order it does not promise: read oldest first, it takes the
// user's; read newest first, the provider's. Either way, and when another
// client deleted the provider's rule first, or when the destroy fails
// after its revokes and is run again, the user's rule is there at the end
// (re-created, with a warning, when the destroy took it) and nothing of the
// cluster is left.
func TestAccCluster_destroyRestoresTheUserAPIRule(t *testing.T) {
	t.Parallel()
	for _, order := range []string{simulator.WorkerRuleOrderAscending, simulator.WorkerRuleOrderDescending} {
		t.Run(cmp.Or(order, "ascending"), func(t *testing.T) {
			t.Parallel()
			env := newSimEnv(t, simtest.WithOptions(func(o *simulator.Options) { o.WorkerRuleOrder = order }))
			rec := &diagRecorder{}
			var id string
			narrowed := userNetworkAPIConfig(env, `["127.0.0.1/32"]`)
			steps := []resource.TestStep{
				{Config: userNetworkAPIConfig(env, ""), Check: recordClusterID(&id)},
				{
					PreConfig: func() { env.addFirewall(t, env.Cluster(id).IPAddressID, 6443, 6443, "10.0.0.0/8") },
					Config:    narrowed,
					Check:     env.expectAPIRules(&id, "[10.0.0.0/8]", "[127.0.0.1/32]"),
				},
			}
			if order == simulator.WorkerRuleOrderAscending {
				// The destroy fails after its revokes: the user's rule is
				// back at once, and the next destroy, of a cluster left in
				// Destroying, keeps it too.
				steps = append(steps, resource.TestStep{
					PreConfig: func() {
						if err := env.Sim.FailJobStep("delete", "forwards", 1, ""); err != nil {
							t.Fatal(err)
						}
					},
					Config:      narrowed,
					Destroy:     true,
					ExpectError: errorFragments("Deleting cluster", "Failed to remove network rules"),
				}, resource.TestStep{
					PreConfig: func() {
						if got := firewallShapeOf(env, id); !slices.Contains(got, "tcp 6443 [10.0.0.0/8]") {
							t.Fatalf("after the failed destroy the user's rule is missing: %v\n%s", got, rec)
						}
						if len(rec.find("Your Firewall Rules Re-Created", "re-created your firewall rule tcp 6443 from 10.0.0.0/8")) != 1 {
							t.Fatalf("no warning for the re-created rule:\n%s", rec)
						}
						rec.reset()
					},
					// The cluster is in Destroying: a plan replaces it, and
					// the destroy below deletes it.
					Config:             narrowed,
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
				})
			} else {
				// Another client deletes the provider's API rule: the
				// destroy can only take the user's.
				steps = append(steps, resource.TestStep{
					PreConfig: func() {
						for _, fw := range env.FirewallRulesOn(env.Cluster(id).IPAddressID) {
							if fw.StartPort == 6443 && slices.Equal(fw.CIDRList, []string{"127.0.0.1/32"}) {
								if err := env.Sim.DeleteRule(fw.ID); err != nil {
									t.Fatal(err)
								}
							}
						}
					},
					Config:             narrowed,
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
				})
			}
			accTest(t, resource.TestCase{
				ProtoV6ProviderFactories: rec.factories(),
				CheckDestroy: func(s *terraform.State) error {
					if err := env.expectOnlyUserAPIRule(s); err != nil {
						return err
					}
					// Oldest first, the last destroy takes the provider's
					// rule, older than the one re-created after the failure.
					want := 0
					if order == simulator.WorkerRuleOrderDescending {
						want = 1
					}
					if got := len(rec.find("Your Firewall Rules Re-Created", "re-created your firewall rule tcp 6443 from 10.0.0.0/8",
						"revokes the first TCP firewall rule of the IP on exactly 6443")); got != want {
						return fmt.Errorf("%d warnings for a re-created rule, want %d:\n%s", got, want, rec)
					}
					return nil
				},
				Steps: steps,
			})
		})
	}
}

// firewallShapeOf is the firewall rules on the cluster's IP as
// "protocol ports [CIDRs]", sorted.
func firewallShapeOf(env *simEnv, id string) []string {
	var out []string
	for _, fw := range env.FirewallRulesOn(env.Cluster(id).IPAddressID) {
		ports := fmt.Sprint(fw.StartPort)
		if fw.EndPort != fw.StartPort {
			ports = fmt.Sprintf("%d-%d", fw.StartPort, fw.EndPort)
		}
		out = append(out, fmt.Sprintf("%s %s %v", fw.Protocol, ports, fw.CIDRList))
	}
	slices.Sort(out)
	return out
}

// expectPlanDriftFinding checks the findings of data.cks_cluster_drift.test
// (or, with fleet, of the one cluster of data.cks_clusters_drift.test) as
// the plan read it, before its apply: exactly one, of the kind, whose
// message holds every part.
type expectPlanDriftFinding struct {
	kind  string
	parts []string
	fleet bool
}

func (c expectPlanDriftFinding) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	addr := driftAddr
	if c.fleet {
		addr = fleetAddr
	}
	var modules []*tfjson.StateModule
	for _, st := range []*tfjson.StateValues{req.Plan.PlannedValues, stateValues(req.Plan.PriorState)} {
		if st != nil && st.RootModule != nil {
			modules = append(modules, st.RootModule)
		}
	}
	for _, m := range modules {
		for _, r := range m.Resources {
			if r.Address == addr {
				resp.Error = c.check(r.AttributeValues)
				return
			}
		}
	}
	resp.Error = fmt.Errorf("%s was not read at plan", addr)
}

func stateValues(s *tfjson.State) *tfjson.StateValues {
	if s == nil {
		return nil
	}
	return s.Values
}

func (c expectPlanDriftFinding) check(values map[string]any) error {
	if c.fleet {
		clusters, _ := values["clusters"].([]any)
		if len(clusters) != 1 {
			return fmt.Errorf("%s read %d clusters at plan, want 1", fleetAddr, len(clusters))
		}
		values, _ = clusters[0].(map[string]any)
	}
	findings, ok := values["findings"].([]any)
	if !ok || len(findings) != 1 {
		return fmt.Errorf("the drift check read findings %v at plan, want 1", values["findings"])
	}
	f, _ := findings[0].(map[string]any)
	msg, _ := f["message"].(string)
	if f["kind"] != c.kind {
		return fmt.Errorf("finding %v, want kind %s", f, c.kind)
	}
	for _, p := range c.parts {
		if !strings.Contains(msg, p) {
			return fmt.Errorf("finding message %q lacks %q", msg, p)
		}
	}
	return nil
}
