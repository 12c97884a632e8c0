package provider

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

const nodeAddr = "cks_cluster_node.gpu"

// externalLane is one profile's part of TestAccClusterNode_externalNodesThroughEveryChange:
// its simulator, its cluster's id and the two VMs that join it.
type externalLane struct {
	profileEnv
	id, gpu, other string
}

// externalClustersConfig is, for every lane, a cluster with 3 etcd nodes
// and size workers on Kubernetes version, on the seeded isolated network
// (a network CloudStack made for the cluster could not be deleted with the
// VMs the nodes leave in it), and, when withNode, the VM var.<label>_gpu
// joined to it with manual_upgrade.
func externalClustersConfig(envs []profileEnv, size int, version string, withNode bool) string {
	hcl := profileProviders(envs)
	for _, p := range envs {
		hcl += p.cluster("gpu-cluster").named(p.label).via(p).version(version).etcd(3).size(size).keypair().
			on(p.Info.IsolatedNetworkID).String()
		hcl += fmt.Sprintf(`
variable "%[1]s_gpu" {
  type    = string
  default = ""
}
variable "%[1]s_other" {
  type    = string
  default = ""
}
`, p.label)
		if withNode {
			hcl += fmt.Sprintf(`
resource "cks_cluster_node" %[1]q {
  provider       = %[2]s
  cluster_id     = cks_cluster.%[1]s.id
  vm_id          = var.%[1]s_gpu
  manual_upgrade = true
}
`, p.label, p.provider)
		}
	}
	return hcl
}

// TestAccClusterNode_externalNodesThroughEveryChange is issue #29's
// sequence on every profile: a cluster with 3 etcd nodes; one VM joined
// through cks_cluster_node (manual_upgrade) and one by another client;
// scales 1→2→1 and 2→3→1 through the provider; another client's scale;
// an upgrade that skips the manual node and upgrades the other; the other
// client's node removed; destroy. Every apply succeeds, every SSH path
// (the external nodes' included) works after each, the plan after each is
// empty, the drift check is clean, and the destroy takes out the node the
// configuration joined and leaves both VMs running. Every profile's
// cluster and node are in one configuration, through its profile's
// simulator, each checked on its own.
func TestAccClusterNode_externalNodesThroughEveryChange(t *testing.T) {
	t.Parallel()
	envs := newProfileEnvs(t)
	lanes := make([]*externalLane, len(envs))
	for i, p := range envs {
		lanes[i] = &externalLane{profileEnv: p}
	}
	each := func(f func(l *externalLane)) func() {
		return func() {
			for _, l := range lanes {
				f(l)
			}
		}
	}
	vars := config.Variables{}
	both := func(l *externalLane) []string { return []string{l.gpu, l.other} }
	step := func(size int, version string, external func(l *externalLane) []string, findings ...string) resource.TestStep {
		var checks []resource.TestCheckFunc
		for _, l := range lanes {
			node := "cks_cluster_node." + l.label
			checks = append(checks,
				func(s *terraform.State) error {
					return l.externalCheck(t, &l.id, int64(size), external(l), findings...)(s)
				},
				resource.TestCheckResourceAttr("cks_cluster."+l.label, "size", fmt.Sprint(size)),
				resource.TestCheckResourceAttr(node, "manual_upgrade", "true"),
				resource.TestCheckResourceAttrSet(node, "ssh_port"))
		}
		return resource.TestStep{
			Config:           externalClustersConfig(envs, size, version, true),
			ConfigVariables:  vars,
			ConfigPlanChecks: emptyPlanAfterApply,
			Check:            resource.ComposeAggregateTestCheckFunc(checks...),
		}
	}
	steps := []resource.TestStep{{
		Config:          externalClustersConfig(envs, 1, "1.33.13", false),
		ConfigVariables: vars,
		Check: func(s *terraform.State) (err error) {
			for _, l := range lanes {
				if l.id, err = idAt(s, "cks_cluster."+l.label); err != nil {
					return err
				}
			}
			return nil
		},
	}}
	join := step(1, "1.33.13", func(l *externalLane) []string { return []string{l.gpu} })
	join.PreConfig = each(func(l *externalLane) {
		l.Sim.AdvanceClock(2 * time.Second) // the VMs come after the cluster's own
		network := l.Cluster(l.id).NetworkID
		l.gpu, l.other = l.DeployVM(network, "gpu-1", true), l.DeployVM(network, "gpu-2", true)
		vars[l.label+"_gpu"], vars[l.label+"_other"] = config.StringVariable(l.gpu), config.StringVariable(l.other)
	})
	theirs := step(1, "1.33.13", both)
	theirs.PreConfig = each(func(l *externalLane) {
		if err := l.JoinVM(l.id, l.other, false); err != nil {
			t.Fatalf("%s: another client's join: %v", l.profile, err)
		}
	})
	steps = append(steps, join, theirs)
	for _, size := range []int{2, 1, 2, 3, 1} {
		steps = append(steps, step(size, "1.33.13", both))
	}
	scaled := step(2, "1.33.13", both)
	scaled.PreConfig = each(func(l *externalLane) {
		if err := l.Scale(l.id, l.Cluster(l.id).Size+1); err != nil {
			t.Fatalf("%s: another client's scale: %v", l.profile, err)
		}
	})
	upgraded := step(2, "1.34.2", both, "manual_upgrade_pending")
	for _, l := range lanes {
		upgraded.Check = resource.ComposeAggregateTestCheckFunc(upgraded.Check,
			l.expectNodeVersions(&l.id, map[*string]string{&l.gpu: "1.33.13", &l.other: "1.34.2"}))
	}
	removed := step(2, "1.34.2", func(l *externalLane) []string { return []string{l.gpu} }, "manual_upgrade_pending")
	removed.PreConfig = each(func(l *externalLane) {
		if err := l.RemoveVM(l.id, l.other); err != nil {
			t.Fatalf("%s: another client's removal: %v", l.profile, err)
		}
	})
	steps = append(steps, scaled, upgraded, removed)
	accTest(t, profileTestCase(envs, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			for _, l := range lanes {
				if err := l.expectOnlyVMsLeft(l.gpu, l.other); err != nil {
					return fmt.Errorf("%s: %w", l.profile, err)
				}
			}
			return nil
		},
		Steps: steps,
	}))
}

// TestAccClusterNode_planRefusesWhatCloudStackWouldDrop: CloudStack drops a
// VM of a template not marked for CKS, or with its default NIC in another
// network, without an error; the plan refuses it on vm_id.
func TestAccClusterNode_planRefusesWhatCloudStackWouldDrop(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	c := env.NewCluster(cloudstack.CreateClusterParams{Name: "refuse", Size: 1, Description: "refuse"})
	plain := env.DeployVM(c.NetworkID, "plain", false)
	elsewhere := env.DeployVM(env.Info.IsolatedNetworkID, "elsewhere", true)
	cfg := func(vm string) string {
		return env.ProviderConfig(fmt.Sprintf(`
resource "cks_cluster_node" "gpu" {
  cluster_id = %q
  vm_id      = %q
}
`, c.ID, vm))
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{Config: cfg(plain), PlanOnly: true, ExpectError: errorFragments("vm_id", "not marked for CKS")},
		{Config: cfg(elsewhere), PlanOnly: true, ExpectError: errorFragments("vm_id", "default NIC")},
	}})
	if n := env.Sim.CallCounts()["addNodesToKubernetesCluster"]; n != 0 {
		t.Errorf("%d add calls, want none", n)
	}
}

// TestAccClusterNode_importAndRecord imports a node another client joined:
// the plan records manual_upgrade in the VM's tag in place, and the destroy
// takes it out of the cluster while the cluster stays.
func TestAccClusterNode_importAndRecord(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	c := env.NewCluster(cloudstack.CreateClusterParams{Name: "imported", Size: 1, Description: "imported"})
	vm := env.DeployVM(c.NetworkID, "gpu-1", true)
	if err := env.JoinVM(c.ID, vm, false); err != nil {
		t.Fatal(err)
	}
	cfg := env.ProviderConfig(fmt.Sprintf(`
resource "cks_cluster_node" "gpu" {
  cluster_id = %q
  vm_id      = %q
}
`, c.ID, vm))
	accTest(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			if env.Cluster(c.ID).ExternalNodes() != 0 {
				return fmt.Errorf("the node is still in the cluster")
			}
			return nil
		},
		Steps: []resource.TestStep{
			{Config: cfg, ResourceName: nodeAddr, ImportState: true, ImportStateId: c.ID + "/" + vm, ImportStatePersist: true},
			{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(nodeAddr, plancheck.ResourceActionUpdate),
			}, PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: func(*terraform.State) error {
					v, err := env.API.GetVirtualMachine(context.Background(), vm)
					if err != nil {
						return err
					}
					if v.Tags[clusterops.TagManualUpgrade] != "false" {
						return fmt.Errorf("tags %v, want %s=false recorded", v.Tags, clusterops.TagManualUpgrade)
					}
					return nil
				}},
		},
	})
}

// TestAccCluster_destroyRefusesUnmanagedExternalNodes: a cluster on a
// network the user supplied with a node another client joined; CloudStack
// would destroy and expunge it with the cluster, so the destroy's plan
// refuses, naming it and the way out, and nothing is deleted.
func TestAccCluster_destroyRefusesUnmanagedExternalNodes(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	cfg := env.etcdCluster(0, 1).on(env.Info.IsolatedNetworkID).String()
	var id, vm string
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: cfg, Check: recordClusterID(&id)},
			{
				PreConfig: func() {
					vm = env.DeployVM(env.Info.IsolatedNetworkID, "gpu-1", true)
					if err := env.JoinVM(id, vm, false); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg, Destroy: true,
				ExpectError: errorFragments("Cluster Has External Nodes", "gpu-1", "removeNodesFromKubernetesCluster"),
			},
			{
				PreConfig: func() {
					if len(env.liveClusters()) != 1 || env.Sim.CallCounts()["deleteKubernetesCluster"] != 0 {
						t.Fatal("the cluster was deleted")
					}
					if err := env.RemoveVM(id, vm); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
			},
		},
		CheckDestroy: func(*terraform.State) error { return env.expectOnlyVMsLeft(vm) },
	})
}
