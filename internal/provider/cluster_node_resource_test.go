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
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

const nodeAddr = "cks_cluster_node.gpu"

// externalClusterConfig is a cluster with 3 etcd nodes and size workers on
// Kubernetes version, on the seeded isolated network (a network CloudStack
// made for the cluster could not be deleted with the VMs the nodes leave
// in it), and, when withNode, the VM var.gpu joined to it with
// manual_upgrade.
func externalClusterConfig(e *simEnv, size int, version string, withNode bool) string {
	hcl := e.cluster("gpu-cluster").version(version).etcd(3).size(size).keypair().on(e.Info.IsolatedNetworkID).String() + `
variable "gpu" {
  type    = string
  default = ""
}
variable "other" {
  type    = string
  default = ""
}
`
	if withNode {
		hcl += `
resource "cks_cluster_node" "gpu" {
  cluster_id     = cks_cluster.test.id
  vm_id          = var.gpu
  manual_upgrade = true
}
`
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
// configuration joined and leaves both VMs running.
func TestAccClusterNode_externalNodesThroughEveryChange(t *testing.T) {
	t.Parallel()
	for _, profile := range simulator.Profiles() {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			env := newSimEnv(t, simtest.WithProfile(profile))
			var id string
			vars := config.Variables{}
			var gpu, other string
			both := func() []string { return []string{gpu, other} }
			step := func(size int, version string, external func() []string, findings ...string) resource.TestStep {
				return resource.TestStep{
					Config:           externalClusterConfig(env, size, version, true),
					ConfigVariables:  vars,
					ConfigPlanChecks: emptyPlanAfterApply,
					Check: resource.ComposeTestCheckFunc(
						func(s *terraform.State) error {
							return env.externalCheck(t, &id, int64(size), external(), findings...)(s)
						},
						resource.TestCheckResourceAttr(clusterAddr, "size", fmt.Sprint(size)),
						resource.TestCheckResourceAttr(nodeAddr, "manual_upgrade", "true"),
						resource.TestCheckResourceAttrSet(nodeAddr, "ssh_port")),
				}
			}
			steps := []resource.TestStep{{
				Config:          externalClusterConfig(env, 1, "1.33.13", false),
				ConfigVariables: vars,
				Check:           recordClusterID(&id),
			}}
			join := step(1, "1.33.13", func() []string { return []string{gpu} })
			join.PreConfig = func() {
				env.Sim.AdvanceClock(2 * time.Second) // the VMs come after the cluster's own
				network := env.Cluster(id).NetworkID
				gpu, other = env.DeployVM(network, "gpu-1", true), env.DeployVM(network, "gpu-2", true)
				vars["gpu"], vars["other"] = config.StringVariable(gpu), config.StringVariable(other)
			}
			theirs := step(1, "1.33.13", both)
			theirs.PreConfig = func() {
				if err := env.JoinVM(id, other, false); err != nil {
					t.Fatalf("another client's join: %v", err)
				}
			}
			steps = append(steps, join, theirs)
			for _, size := range []int{2, 1, 2, 3, 1} {
				steps = append(steps, step(size, "1.33.13", both))
			}
			scaled := step(2, "1.33.13", both)
			scaled.PreConfig = func() {
				if err := env.Scale(id, env.Cluster(id).Size+1); err != nil {
					t.Fatalf("another client's scale: %v", err)
				}
			}
			upgraded := step(2, "1.34.2", both, "manual_upgrade_pending")
			upgraded.Check = resource.ComposeTestCheckFunc(upgraded.Check, env.expectNodeVersions(&id, map[*string]string{&gpu: "1.33.13", &other: "1.34.2"}))
			removed := step(2, "1.34.2", func() []string { return []string{gpu} }, "manual_upgrade_pending")
			removed.PreConfig = func() {
				if err := env.RemoveVM(id, other); err != nil {
					t.Fatalf("another client's removal: %v", err)
				}
			}
			steps = append(steps, scaled, upgraded, removed)
			accTest(t, resource.TestCase{
				CheckDestroy: func(*terraform.State) error { return env.expectOnlyVMsLeft(gpu, other) },
				Steps:        steps,
			})
		})
	}
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
