package provider

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// State that never says "in sync" when it is not, and a destroy that always
// works: each test here failed before the provider learnt it.

// TestAccHonest_etcdRangeBlockedKeepsTheEtcdRule: a user firewall rule on
// the network's IP is in the way of the etcd SSH range. For one etcd node
// the provider takes 49999-50000 instead; when that is taken too, CKS's
// single-port etcd rule stays (SSH to the etcd node stays open), the state
// says the rules are not in sync, the next plan is empty and names the
// user's rule, a size change is refused naming it, and once the user's rule
// is gone the next apply converts the rules.
func TestAccHonest_etcdRangeBlockedKeepsTheEtcdRule(t *testing.T) {
	t.Parallel()
	t.Run("alternate range", func(t *testing.T) {
		t.Parallel()
		env := newSimEnv(t)
		ip := env.userNetworkIP(t)
		users := []string{env.addFirewall(t, ip.ID, 50001, 50001, "0.0.0.0/0")}
		network := env.Info.IsolatedNetworkID
		accTest(t, resource.TestCase{
			CheckDestroy: env.deleteRulesThen(&users),
			Steps: []resource.TestStep{{
				Config:            env.etcdCluster(1, 1).on(network).String(),
				ConfigPlanChecks:  emptyPlanAfterApply,
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("ssh_rules_in_sync", knownvalue.Bool(true))},
				Check: resource.ComposeTestCheckFunc(
					env.expectFirewalls(ip.ID, "2222-2223 0.0.0.0/0", "6443-6443 0.0.0.0/0", "49999-50000 0.0.0.0/0", "50001-50001 0.0.0.0/0"),
					func(s *terraform.State) error {
						env.expectSSH(t, ip.IPAddress, 2222, 2223, 50000)
						return env.expectStateMatchesCloudStack(clusterAddr)(s)
					}),
			}},
		})
	})
	t.Run("both ranges blocked", func(t *testing.T) {
		t.Parallel()
		env := newSimEnv(t)
		ip := env.userNetworkIP(t)
		// One rule on each side of the etcd port: neither two-port range
		// fits, while CKS's own single-port rule does.
		users := []string{env.addFirewall(t, ip.ID, 49999, 49999, "0.0.0.0/0")}
		blocker := env.addFirewall(t, ip.ID, 50001, 50001, "0.0.0.0/0")
		network := env.Info.IsolatedNetworkID
		accTest(t, resource.TestCase{
			CheckDestroy: env.deleteRulesThen(&users),
			Steps: []resource.TestStep{
				{
					Config:            env.etcdCluster(1, 1).on(network).String(),
					ConfigPlanChecks:  emptyPlanAfterApply,
					ConfigStateChecks: []statecheck.StateCheck{expectAttr("ssh_rules_in_sync", knownvalue.Bool(false))},
					Check: resource.ComposeTestCheckFunc(
						env.expectFirewalls(ip.ID, "2222-2223 0.0.0.0/0", "6443-6443 0.0.0.0/0", "49999-49999 0.0.0.0/0",
							"50000-50000 0.0.0.0/0", "50001-50001 0.0.0.0/0"),
						func(*terraform.State) error { env.expectSSH(t, ip.IPAddress, 2222, 2223, 50000); return nil }),
				},
				{
					Config:      env.etcdCluster(1, 2).on(network).String(),
					ExpectError: errorFragments("Unsafe Cluster Scale", "CKS etcd SSH firewall rule", "conflict with rule", blocker),
				},
				{
					PreConfig: func() {
						if err := env.Sim.DeleteRule(blocker); err != nil {
							t.Fatal(err)
						}
					},
					Config:            env.etcdCluster(1, 1).on(network).String(),
					ConfigPlanChecks:  emptyPlanAfterApply,
					ConfigStateChecks: []statecheck.StateCheck{expectAttr("ssh_rules_in_sync", knownvalue.Bool(true))},
					Check: env.expectFirewalls(ip.ID, "2222-2223 0.0.0.0/0", "6443-6443 0.0.0.0/0", "49999-49999 0.0.0.0/0",
						"50000-50001 0.0.0.0/0"),
				},
			},
		})
	})
}

// TestAccHonest_failedNarrowingKeepsTheOldCIDRs: narrowing ssh_cidrs while
// CloudStack fails the rule deletes fails the apply and leaves the state
// with the CIDRs the rules have, so the next plan shows the narrowing again,
// and its apply deletes the wider rules as the cluster's own; a size change
// then works.
func TestAccHonest_failedNarrowingKeepsTheOldCIDRs(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	wide := []string{"10.0.0.0/8", "127.0.0.0/8"}
	narrow := []string{"127.0.0.1/32"}
	var ipID string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.etcdCluster(3, 1).set("ssh_cidrs", wide).String(),
				Check: func(s *terraform.State) error {
					id, err := clusterID(s)
					if err == nil {
						ipID = env.Cluster(id).IPAddressID
					}
					return err
				},
			},
			{
				PreConfig:   func() { env.Sim.FailNextCalls("deleteFirewallRule", 20, 530, "the firewall provider is down") },
				Config:      env.etcdCluster(3, 1).set("ssh_cidrs", narrow).String(),
				ExpectError: errorFragments("the firewall provider is down"),
			},
			{
				// The state kept the wide CIDRs: the plan shows the narrowing.
				PreConfig: env.Sim.ClearFaults,
				Config:    env.etcdCluster(3, 1).set("ssh_cidrs", narrow).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("ssh_rules_in_sync", knownvalue.Bool(true))},
				Check: func(*terraform.State) error {
					return env.expectFirewalls(ipID, "2222-2223 127.0.0.1/32", "50000-50002 127.0.0.1/32", "6443-6443 0.0.0.0/0")(nil)
				},
			},
			{
				Config:           env.etcdCluster(3, 2).set("ssh_cidrs", narrow).String(),
				ConfigPlanChecks: emptyPlanAfterApply,
				Check: func(*terraform.State) error {
					return env.expectFirewalls(ipID, "2222-2224 127.0.0.1/32", "50000-50002 127.0.0.1/32", "6443-6443 0.0.0.0/0")(nil)
				},
			},
		},
	})
}

// TestAccHonest_destroyNeverBlocked: a configuration whose update the
// provider refuses (a size the VM map cannot take, a size change with a
// rule of the user's in the way) fails its apply, and `terraform destroy`
// with that configuration still works, as does a replacement.
func TestAccHonest_destroyNeverBlocked(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	t.Run("broken by #14159", func(t *testing.T) {
		t.Parallel()
		env := newSimEnv(t, simtest.WithProfile(simulator.Profile42211))
		id := env.createEtcdClusterOutOfBand()
		env.breakByEtcdRulePick(t, id)
		accTest(t, resource.TestCase{
			CheckDestroy: env.expectNothingLeft,
			Steps: []resource.TestStep{
				{
					Config: env.etcdCluster(3, 1).String(), ResourceName: clusterAddr, ImportState: true,
					ImportStateId: id, ImportStatePersist: true,
				},
				{
					// The size CloudStack still records, with one worker
					// expunged: refused; the test's destroy then runs with
					// this configuration, whose plan warns and must not fail.
					Config:      env.etcdCluster(3, 2).String(),
					ExpectError: errorFragments("Cluster Size Cannot Change", "size = 2 cannot be applied"),
				},
			},
		})
	})
	t.Run("user rule in the way, then replaced", func(t *testing.T) {
		t.Parallel()
		env := newSimEnv(t)
		var id string
		accTest(t, resource.TestCase{
			CheckDestroy: env.expectNothingLeft,
			Steps: []resource.TestStep{
				{
					Config: env.etcdCluster(1, 1).String(),
					Check:  recordClusterID(&id),
				},
				{
					PreConfig:   func() { env.addUserSSHRules(t, id) },
					Config:      env.etcdCluster(1, 2).String(),
					ExpectError: errorFragments("Unsafe Cluster Scale", "user firewall rule"),
				},
				{
					// A name change replaces the cluster; the size change
					// that the provider refuses on an update plays no part.
					Config: env.etcdCluster(1, 2).set("name", "cks-etcd-renamed").String(),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionDestroyBeforeCreate),
					}},
				},
			},
		})
	})
}

// TestAccHonest_createOnlyInputsNotEchoed: a server that leaves csienabled
// and cniconfigurationid out of its response keeps enable_csi and
// cni_configuration_id as configured: no replacement loop. A server before
// 4.22, which has no CSI driver, refuses enable_csi = true at plan.
func TestAccHonest_createOnlyInputsNotEchoed(t *testing.T) {
	t.Parallel()
	t.Run("not echoed", func(t *testing.T) {
		t.Parallel()
		env := newSimEnv(t, simtest.WithOptions(func(o *simulator.Options) {
			o.ClusterResponseOmits = []string{"csienabled", "cniconfigurationid", "cniconfigname"}
		}))
		config := env.etcdCluster(1, 1).set("enable_csi", true).set("cni_configuration_id", env.Info.CNIConfigurationID)
		accTest(t, resource.TestCase{
			CheckDestroy: env.expectNothingLeft,
			Steps: []resource.TestStep{{
				Config:           config.String(),
				ConfigPlanChecks: emptyPlanAfterApply,
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("enable_csi", knownvalue.Bool(true)),
					expectAttr("cni_configuration_id", knownvalue.StringExact(env.Info.CNIConfigurationID)),
				},
			}},
		})
	})
	t.Run("4.21 has no CSI", func(t *testing.T) {
		t.Parallel()
		env := newSimEnv(t, simtest.WithProfile(simulator.Profile42100))
		accTest(t, resource.TestCase{
			CheckDestroy: env.expectNothingLeft,
			Steps: []resource.TestStep{
				{
					Config:      env.etcdCluster(1, 1).set("enable_csi", true).String(),
					ExpectError: errorFragments("CSI Not Supported", "enable_csi = true needs CloudStack 4.22", "4.21.0.0"),
				},
				{
					Config:            env.etcdCluster(1, 1).String(),
					ConfigPlanChecks:  emptyPlanAfterApply,
					ConfigStateChecks: []statecheck.StateCheck{expectAttr("enable_csi", knownvalue.Bool(false))},
				},
			},
		})
	})
}

// TestAccHonest_lostDeleteAnswers: the answers to the deletes of CKS's
// three single-port etcd rules are lost (a proxy's 504), though CloudStack
// deleted them. The provider reads the rules to learn that, creates the
// etcd SSH range, and every SSH path works.
func TestAccHonest_lostDeleteAnswers(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{{
			PreConfig:         func() { env.Sim.LoseNextResponses("deleteFirewallRule", 3) },
			Config:            env.etcdCluster(3, 1).String(),
			ConfigPlanChecks:  emptyPlanAfterApply,
			ConfigStateChecks: []statecheck.StateCheck{expectAttr("ssh_rules_in_sync", knownvalue.Bool(true))},
			Check:             env.checkCluster(t, clusterAddr, 1, etcdFirewalls(1, 3)),
		}},
	})
}

// TestAccHonest_cidrFamily: IPv6 source CIDRs on a cluster whose SSH rules
// are on an IPv4 address are refused, at plan for a new cluster, before
// any rule change for an existing one; its destroy works.
func TestAccHonest_cidrFamily(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	v6 := []string{"::/0"}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config:      env.etcdCluster(1, 1).set("ssh_cidrs", v6).String(),
				PlanOnly:    true,
				ExpectError: errorFragments("Invalid CIDR", "ssh_cidrs[0]: ", "IPv4"),
			},
			{Config: env.etcdCluster(1, 1).String()},
			{
				PreConfig:   env.Sim.ResetCallCounts,
				Config:      env.etcdCluster(1, 1).set("ssh_cidrs", v6).String(),
				ExpectError: errorFragments("Invalid CIDR", "ssh_cidrs[0]: ", "an IPv4 address", "::/0"),
			},
			{
				PreConfig: func() {
					for _, command := range []string{"deleteFirewallRule", "createFirewallRule"} {
						if n := env.Sim.CallCounts()[command]; n != 0 {
							t.Fatalf("the refused change made %d %s call(s)", n, command)
						}
					}
				},
				Config:           env.etcdCluster(1, 1).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}

// TestAccHonest_stuckInScaling: a cluster CloudStack left in Scaling with
// no job running (4.22.0.0, another client's scale meeting a port-less
// rule). An apply that changes it stops at once, saying what ends it; with
// state = "Stopped" the provider stops it, which CloudStack allows in any
// state; a destroy of a stuck cluster stops at once too, and works once the
// cluster is stopped.
func TestAccHonest_stuckInScaling(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t, simtest.WithProfile(simulator.Profile42200))
	var id string
	stuck := func() {
		if err := env.Sim.SetClusterState(id, "Scaling"); err != nil {
			t.Fatal(err)
		}
	}
	stopped := env.etcdCluster(1, 1).set("state", "Stopped").String()
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.etcdCluster(1, 1).String(),
				Check:  recordClusterID(&id),
			},
			{
				PreConfig:   stuck,
				Config:      env.etcdCluster(1, 2).String(),
				ExpectError: errorFragments("Cluster Stuck in Scaling", "no CloudStack job of it is running", "A stop ends it"),
			},
			{
				Config:      env.etcdCluster(1, 2).String(),
				Destroy:     true,
				ExpectError: errorFragments("Cluster Stuck in Scaling", "stopKubernetesCluster runs in Scaling"),
			},
			{
				Config:            stopped,
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("cloudstack_state", knownvalue.StringExact("Stopped"))},
			},
		},
	})
}

// TestAccHonest_twinCreatedMeanwhile: another client creates a cluster of
// the same name while the provider's create runs, after its same-name
// check. The apply succeeds with the provider's cluster in state, nothing
// is deleted, and both clusters exist for the user to sort out.
func TestAccHonest_twinCreatedMeanwhile(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	proxy := newFaultProxy(t, env.Info.APIURL)
	var twin string
	accTest(t, resource.TestCase{
		CheckDestroy: func(s *terraform.State) error {
			ref, err := env.API.DeleteKubernetesCluster(context.Background(), twin)
			if err == nil {
				err = env.WaitJob(ref.JobID)
			}
			if err != nil {
				return fmt.Errorf("deleting the twin: %w", err)
			}
			return env.expectNothingLeft(s)
		},
		Steps: []resource.TestStep{{
			PreConfig: func() {
				proxy.afterNext("createKubernetesCluster", func() {
					twin = env.NewCluster(cloudstack.CreateClusterParams{Name: "readback", Size: 1}).ID
				})
			},
			Config: env.cluster("readback").through(env.providerAt(proxy.URL())).String(),
			Check: func(s *terraform.State) error {
				id, err := clusterID(s)
				if err != nil {
					return err
				}
				live := env.liveClusters()
				if len(live) != 2 || id == twin || !slices.ContainsFunc(live, func(c liveCluster) bool { return c.ID == id }) {
					return fmt.Errorf("want the provider's cluster %s and the twin %s, have %v", id, twin, live)
				}
				return nil
			},
		}},
	})
}
