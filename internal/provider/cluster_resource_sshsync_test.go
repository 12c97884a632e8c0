package provider

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// TestAccCluster_sshRulesRepairedOnHealthyCluster deletes an etcd port
// forward and the node SSH range of a healthy cluster out of band: the next
// refresh finds the rules out of sync, the plan is an in-place update, apply
// restores exactly the rules CKS created, and the plan after it is empty.
func TestAccCluster_sshRulesRepairedOnHealthyCluster(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t, simtest.WithProfile("fixed"))
	config := env.etcdCluster(3, 1).String()
	var created []string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config:            config,
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("ssh_rules_in_sync", knownvalue.Bool(true))},
				Check: func(s *terraform.State) error {
					rs, err := env.clusterRuleSignatures(s)
					created = rs
					return err
				},
			},
			{
				PreConfig: func() {
					env.deleteClusterRules(t, func(r simulator.DumpRule) bool {
						return r.Purpose == "PortForwarding" && r.StartPort == 50001 ||
							r.Purpose == "Firewall" && r.StartPort == 2222 && r.EndPort == 2223
					}, 2)
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(clusterAddr, tfjsonpathOf("ssh_rules_in_sync"), knownvalue.Bool(true)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("ssh_rules_in_sync", knownvalue.Bool(true))},
				Check: func(s *terraform.State) error {
					got, err := env.clusterRuleSignatures(s)
					if err != nil {
						return err
					}
					if !slices.Equal(got, created) {
						return fmt.Errorf("rules after the repair:\n%s\nwant the rules CKS created:\n%s",
							strings.Join(got, "\n"), strings.Join(created, "\n"))
					}
					return nil
				},
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
	})
}

// expectOnlyChanged is a plan check: the resource's planned values differ
// from its prior ones in exactly these attributes, and none is unknown.
type expectOnlyChanged struct {
	addr  string
	attrs []string
}

func (c expectOnlyChanged) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.addr {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		after, _ := rc.Change.After.(map[string]any)
		if unknown, _ := rc.Change.AfterUnknown.(map[string]any); len(unknown) > 0 {
			resp.Error = fmt.Errorf("%s: unknown after apply: %v", c.addr, unknown)
			return
		}
		var changed []string
		for k, v := range after {
			if !reflect.DeepEqual(before[k], v) {
				changed = append(changed, k)
			}
		}
		slices.Sort(changed)
		if !slices.Equal(changed, c.attrs) {
			resp.Error = fmt.Errorf("%s: changed %v, want only %v", c.addr, changed, c.attrs)
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", c.addr)
}

// expectOnePortBack is a plan check: in nodes, exactly one element
// changes, and only its ssh_port, from null to port.
type expectOnePortBack struct {
	addr string
	port string
}

func (c expectOnePortBack) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.addr {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)["nodes"].([]any)
		after, _ := rc.Change.After.(map[string]any)["nodes"].([]any)
		if len(before) != len(after) {
			resp.Error = fmt.Errorf("nodes %d -> %d", len(before), len(after))
			return
		}
		changed := 0
		for i := range before {
			b, okB := before[i].(map[string]any)
			a, okA := after[i].(map[string]any)
			if !okA || !okB {
				resp.Error = fmt.Errorf("node %d is not an object", i)
				return
			}
			if reflect.DeepEqual(a, b) {
				continue
			}
			changed++
			port := fmt.Sprint(a["ssh_port"]) // a json.Number
			was := b["ssh_port"]
			b["ssh_port"] = a["ssh_port"]
			if was != nil || !reflect.DeepEqual(a, b) || port != c.port {
				resp.Error = fmt.Errorf("node %d changes (ssh_port %v) %v -> %v, want only ssh_port null -> %v", i, was, b, a, c.port)
				return
			}
		}
		if changed != 1 {
			resp.Error = fmt.Errorf("%d nodes change, want one", changed)
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", c.addr)
}

// TestAccCluster_repairPlanNamesOnlyWhatChanges: one etcd SSH forward is
// deleted out of band; the refresh shows that node without an SSH port, and
// the plan that repairs it keeps every node known and changes only that
// node's port and ssh_rules_in_sync, whatever order the API lists rules in.
func TestAccCluster_repairPlanNamesOnlyWhatChanges(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	var id string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.etcdCluster(3, 1).String(),
				Check:  recordClusterID(&id),
			},
			{
				PreConfig: func() { env.DeleteForward(env.Cluster(id), 50001) },
				Config:    env.etcdCluster(3, 1).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						expectOnlyChanged{clusterAddr, []string{"nodes", "ssh_rules_in_sync"}},
						expectOnePortBack{clusterAddr, "50001"},
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: env.checkCluster(t, clusterAddr, 1, etcdFirewalls(1, 3)),
			},
		},
	})
}
