package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// vpcCluster is cks_cluster.test on a VPC tier with one etcd node.
func vpcCluster(e *simEnv, networkID, versionID string, size int, state string) clusterConfig {
	return e.cluster("vpc").set("kubernetes_version_id", versionID).on(networkID).etcd(1).size(size).keypair().set("state", state)
}

// vpcClusterConfig is vpcCluster and, while it runs, a drift check over SSH
// that fails the plan on drift.
func vpcClusterConfig(e *simEnv, networkID, versionID string, size int, state string) string {
	c := vpcCluster(e, networkID, versionID, size, state)
	if state == "Running" {
		c = c.with(vpcDriftGate(e))
	}
	return c.String()
}

// vpcDriftGate is a drift check of cks_cluster.test over SSH, through the
// tier's forwards and network ACL, that fails the plan on any finding.
func vpcDriftGate(e *simEnv) string {
	return fmt.Sprintf(`
data "cks_cluster_drift" "gate" {
  cluster_id    = cks_cluster.test.id
  node_source   = "ssh"
  fail_on_drift = true
  ssh = {
    private_key_file         = %q
    insecure_ignore_host_key = true
  }
}
`, e.KeyFile)
}

// TestAccCluster_vpcTier runs a cluster on a VPC tier through its life, on
// a tier whose network ACL list is the VPC's own (where CKS adds items for
// 6443, 22 and 2379) and on one that uses default_allow (where it adds
// none): create and import, scale 1 -> 2 -> 1, upgrade, stop and start, each apply
// followed by an empty plan, every SSH and API path working while it runs
// and the drift check clean; then destroy, which leaves no rule, and on the
// VPC's list none of CKS's items but the user's own.
func TestAccCluster_vpcTier(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, network string }{{"own ACL list", "acl"}, {"default_allow", "default_allow"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newSimEnv(t)
			network := map[string]string{"acl": env.Info.VPCACLTierNetworkID, "default_allow": env.Info.VPCTierNetworkID}[tc.network]
			testVPCTierLifecycle(t, env, network)
		})
	}
}

func testVPCTierLifecycle(t *testing.T, env *simEnv, network string) {
	v133, v134 := env.VersionID("1.33.13"), env.VersionID("1.34.2")
	sameID := statecheck.CompareValue(compare.ValuesSame())
	before := env.aclSignatures()
	step := func(version string, size int, state string) resource.TestStep {
		checks := []statecheck.StateCheck{
			sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
			expectAttr("size", knownvalue.Int64Exact(int64(size))),
			expectAttr("state", knownvalue.StringExact(state)),
			expectAttr("kubernetes_version_id", knownvalue.StringExact(version)),
			expectAttr("ssh_rules_in_sync", knownvalue.Bool(true)),
			expectAttr("ip_address_id", knownvalue.Null()),
		}
		var check resource.TestCheckFunc
		if state == "Running" {
			checks = append(checks, statecheck.ExpectKnownValue("data.cks_cluster_drift.gate", tfjsonpath.New("in_sync"), knownvalue.Bool(true)))
			check = env.checkVPCPaths(t)
		}
		// terraform-plugin-testing plans twice after the apply, without and
		// with a refresh, and fails the step unless both plans are empty.
		return resource.TestStep{Config: vpcClusterConfig(env, network, version, size, state), ConfigStateChecks: checks,
			Check: check, ConfigPlanChecks: emptyPlanAfterApply}
	}
	var steps []resource.TestStep
	importStep := resource.TestStep{ResourceName: clusterAddr, ImportState: true, ImportStateVerify: true,
		ImportStateVerifyIgnore: notReturnedInputs}
	for i, s := range []struct {
		version     string
		size        int
		state       string
		description string
	}{
		{v133, 1, "Running", "create"}, {v133, 2, "Running", "scale up"}, {v133, 1, "Running", "scale down"},
		{v134, 1, "Running", "upgrade"}, {v134, 1, "Stopped", "stop"}, {v134, 1, "Running", "start"},
	} {
		steps = append(steps, step(s.version, s.size, s.state))
		if i == 0 {
			steps = append(steps, importStep)
		}
	}
	accTest(t, resource.TestCase{
		CheckDestroy: func(s *terraform.State) error {
			if err := env.expectNothingLeft(s); err != nil {
				return err
			}
			if after := env.aclSignatures(); !slices.Equal(after, before) {
				return fmt.Errorf("network ACL items after destroy:\n%s\nwant those before the cluster:\n%s",
					strings.Join(after, "\n"), strings.Join(before, "\n"))
			}
			return nil
		},
		Steps: steps,
	})
}

// TestAccCluster_vpcTierACLItemRepaired deletes CKS's item for 22 from the
// tier's list out of band: SSH to every node fails, the drift check fails
// the plan with network_acl_item_missing, the cluster plans
// ssh_rules_in_sync back to true, and the apply creates the item again as
// CKS made it, after which every path works and the plan is empty.
func TestAccCluster_vpcTierACLItemRepaired(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	v133 := env.VersionID("1.33.13")
	config := vpcClusterConfig(env, env.Info.VPCACLTierNetworkID, v133, 1, "Running")
	noGate := vpcCluster(env, env.Info.VPCACLTierNetworkID, v133, 1, "Running").String()
	var created []string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{Config: config, Check: func(*terraform.State) error { created = env.aclSignatures(); return nil }},
			{
				PreConfig:          func() { env.DeleteCKSACLItems(env.Info.VPCACLID, 22) },
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ExpectError: errorFragments("Cluster Drift Detected", drift.KindNetworkACLItemMissing,
					"lets TCP 22 in"),
			},
			{
				Config: noGate,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("ssh_rules_in_sync"), knownvalue.Bool(true)),
				}},
				Check: resource.ComposeTestCheckFunc(env.checkVPCPaths(t), func(*terraform.State) error {
					if got := env.aclSignatures(); !slices.Equal(got, created) {
						return fmt.Errorf("items after the repair %v, want those CKS created %v", got, created)
					}
					return nil
				}),
			},
			{Config: config, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}

// TestAccCluster_vpcTierUserForwardNamedBeforeScale: a user forward on the
// cluster's VPC IP at a port the next scale's forward cleanup reaches is
// named by the drift check (scale_hazard) and by the plan of the scale, and
// the apply refuses the scale before any change; without the forward the
// scale goes through.
func TestAccCluster_vpcTierUserForwardNamedBeforeScale(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	v133 := env.VersionID("1.33.13")
	var forwardID string
	addForward := func() {
		c := env.clusterNamed(t, "vpc")
		ipID := env.publicIPOf(t, clusterview.EndpointHost(c))
		var worker string
		for _, vm := range c.VirtualMachines {
			if strings.Contains(vm.Name, "-node-") {
				worker = vm.ID
			}
		}
		ref, err := env.API.CreatePortForwardingRule(t.Context(), cloudstack.CreatePortForwardingRuleParams{IPAddressID: ipID,
			Protocol: "tcp", PublicPort: 2225, PrivatePort: 8080, VirtualMachineID: worker, NetworkID: c.NetworkID})
		if err == nil {
			_, err = cloudstack.WaitForJob(t.Context(), env.API, ref.JobID, cloudstack.WaitOptions{})
		}
		if err != nil {
			t.Fatalf("creating the user forward: %v", err)
		}
		forwardID = ref.ID
	}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{Config: vpcClusterConfig(env, env.Info.VPCACLTierNetworkID, v133, 2, "Running")},
			{
				// 2225 is the port the next node gets: the drift check
				// names the forward before anyone scales.
				PreConfig:          addForward,
				Config:             vpcClusterConfig(env, env.Info.VPCACLTierNetworkID, v133, 2, "Running"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: false,
				ExpectError:        errorFragments("Cluster Drift Detected", drift.KindScaleHazard, "user port forward", "2225"),
			},
			{
				Config:      vpcCluster(env, env.Info.VPCACLTierNetworkID, v133, 3, "Running").String(),
				ExpectError: errorFragments("Unsafe Cluster Scale", "user port forward", "2225", "could not be re-created"),
			},
			{
				PreConfig: func() {
					if err := env.Sim.DeleteRule(forwardID); err != nil {
						t.Fatal(err)
					}
				},
				Config:            vpcClusterConfig(env, env.Info.VPCACLTierNetworkID, v133, 3, "Running"),
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("size", knownvalue.Int64Exact(3))},
				Check:             env.checkVPCPaths(t),
			},
		},
	})
}

// TestAccCluster_vpcTierSharedACLList has two clusters on two tiers that
// share one network ACL list, and an item of the user's that CloudStack's
// destroy cannot tell from CKS's ("TCP" on 22). Destroying the first
// cluster revokes every such item of the list; the provider re-creates the
// user's item and the items the second cluster needs, deletes the first
// one's 2379 item, and the second cluster keeps every path, its rules in
// sync and an empty plan.
func TestAccCluster_vpcTierSharedACLList(t *testing.T) {
	readsListsInAnyOrder(t)
	t.Parallel()
	env := newSimEnv(t)
	v133 := env.VersionID("1.33.13")
	second := env.cluster("second").named("second").on(env.Info.VPCACLTierLBNetworkID).keypair().through("").String()
	both := vpcClusterConfig(env, env.Info.VPCACLTierNetworkID, v133, 1, "Running") + second
	secondOnly := env.ProviderConfig(second)
	var userItem string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{Config: both, Check: func(*terraform.State) error {
				ref, err := env.API.CreateNetworkACL(t.Context(), cloudstack.CreateNetworkACLParams{ACLID: env.Info.VPCACLID,
					Protocol: "TCP", StartPort: 22, EndPort: 22, CIDRList: []string{"192.0.2.0/24"}, Reason: "office"})
				if err == nil {
					_, err = cloudstack.WaitForJob(t.Context(), env.API, ref.JobID, cloudstack.WaitOptions{})
				}
				userItem = ref.ID
				return err
			}},
			{
				Config: secondOnly,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionDestroy),
					plancheck.ExpectResourceAction("cks_cluster.second", plancheck.ResourceActionNoop),
				}},
				Check: func(s *terraform.State) error {
					rs := s.RootModule().Resources["cks_cluster.second"]
					if ssh, api, err := env.Sim.ClusterReachable(rs.Primary.ID); err != nil || !ssh || !api {
						return fmt.Errorf("the second cluster: SSH %t, API %t (%v)", ssh, api, err)
					}
					var items []string
					for _, it := range env.ACLItems(env.Info.VPCACLID) {
						items = append(items, fmt.Sprintf("%s %d %s %s", it.Protocol, it.StartPort, strings.Join(it.CIDRList, ","), it.Reason))
					}
					slices.Sort(items)
					want := []string{"TCP 22 0.0.0.0/0,::/0 ", "TCP 22 192.0.2.0/24 office", "TCP 6443 0.0.0.0/0,::/0 ", "tcp 443 0.0.0.0/0,::/0 web"}
					if !slices.Equal(items, want) {
						return fmt.Errorf("items after the first cluster's destroy %v, want %v (the user's item was %s)", items, want, userItem)
					}
					return nil
				},
			},
			{
				Config:           secondOnly,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("cks_cluster.second", tfjsonpath.New("ssh_rules_in_sync"), knownvalue.Bool(true)),
				},
			},
		},
	})
}

// TestAccCluster_vpcTierRefusesCIDRs: ssh_cidrs and api_cidrs cannot narrow a
// VPC tier's shared network ACL items. A new cluster with one of them fails
// at plan, before anything is created; added to an existing cluster, apply
// refuses the change before any call.
func TestAccCluster_vpcTierRefusesCIDRs(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	cluster := vpcCluster(env, env.Info.VPCACLTierNetworkID, env.VersionID("1.33.13"), 1, "Running")
	base := cluster.String()
	with := func(attribute string) string { return cluster.set(attribute, []string{"10.0.0.0/8"}).String() }
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config:      with("ssh_cidrs"),
				PlanOnly:    true,
				ExpectError: errorFragments("Not Supported on a VPC Tier", "ssh_cidrs cannot be set for a cluster on a VPC tier", "belongs to the list"),
			},
			{Config: base, Check: func(*terraform.State) error {
				if n := len(env.liveClusters()); n != 1 {
					return fmt.Errorf("%d clusters: the refused plan created one", n)
				}
				return nil
			}},
			{
				Config:      with("api_cidrs"),
				ExpectError: errorFragments("Not Supported on a VPC Tier", "api_cidrs cannot be set for a cluster on a VPC tier"),
			},
			{Config: base, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}

// TestVPCTierDestroyPlanSaysWhatItRevokes runs the CLI as a user does: the
// plan of destroying a cluster whose tier shares its network ACL list with
// another cluster's tier warns that CloudStack's destroy revokes the user's
// "TCP" item on 22 and the other cluster's items, and what the provider
// re-creates; the destroy warns of each item it re-created.
func TestVPCTierDestroyPlanSaysWhatItRevokes(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	second := env.NewCluster(cloudstack.CreateClusterParams{Name: "second", Size: 1, NetworkID: env.Info.VPCACLTierLBNetworkID})
	work := t.TempDir()
	config := requiredProviders + vpcCluster(env, env.Info.VPCACLTierNetworkID, env.VersionID("1.33.13"), 1, "Running").String()
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	r.terraform(work, nil, "apply", "-auto-approve", "-input=false", "-no-color")
	ref, err := env.API.CreateNetworkACL(t.Context(), cloudstack.CreateNetworkACLParams{ACLID: env.Info.VPCACLID, Protocol: "TCP",
		StartPort: 22, EndPort: 22, CIDRList: []string{"192.0.2.0/24"}})
	if err == nil {
		_, err = cloudstack.WaitForJob(t.Context(), env.API, ref.JobID, cloudstack.WaitOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}

	plan := r.terraform(work, nil, "plan", "-destroy", "-input=false", "-no-color")
	for _, want := range [][]string{
		{"Destroy Changes a Shared Network ACL List", "exactly \"TCP\" on port 6443 or 22"},
		{"network ACL item " + ref.ID, "192.0.2.0/24", "is yours", "re-creates it after the destroy"},
		{"second (" + second.ID + ")", "lose their API and SSH access", "re-creates one item for 6443 and one for 22"},
		{"CKS's item for this cluster's etcd nodes", "the provider deletes it"},
	} {
		if !errorFragments(want...).MatchString(plan) {
			t.Errorf("the destroy plan does not say %q:\n%s", want, plan)
		}
	}
	destroy := r.terraform(work, nil, "destroy", "-auto-approve", "-input=false", "-no-color")
	for _, want := range [][]string{
		{"re-created your network ACL item " + ref.ID},
		{"for cluster(s) second (" + second.ID + ")"},
		{"deleted", "CKS's item for the cluster's etcd nodes"},
	} {
		if !errorFragments(want...).MatchString(destroy) {
			t.Errorf("the destroy does not say %q:\n%s", want, destroy)
		}
	}
	if ssh, api, err := env.Sim.ClusterReachable(second.ID); err != nil || !ssh || !api {
		t.Fatalf("the second cluster after the destroy: SSH %t, API %t (%v)", ssh, api, err)
	}
}
