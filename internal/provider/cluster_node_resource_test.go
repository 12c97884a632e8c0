package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

const nodeAddr = "cks_cluster_node.gpu"

// externalClusterConfig is a cluster with 3 etcd nodes and size workers on
// Kubernetes version, on the seeded isolated network (a network CloudStack
// made for the cluster could not be deleted with the VMs the nodes leave
// in it), and, when withNode, the VM var.gpu joined to it with
// manual_upgrade.
func (e *simEnv) externalClusterConfig(size int, version string, withNode bool) string {
	hcl := e.clusterHCL("gpu-cluster", fmt.Sprintf(`
  kubernetes_version_id = %q
  etcd_nodes            = 3
  size                  = %d
  keypair               = %q
  network_id            = %q
`, e.VersionID(version), size, e.Info.Keypair, e.Info.IsolatedNetworkID)) + `
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

// externalCheck checks, after a step, through the API: the cluster Running
// with size workers CKS made and the external nodes, one node SSH range
// over every node, every forward to its VM and SSH on each, and a drift
// check (VM map, VMs, Kubernetes nodes through the kubeconfig, rules) with
// no finding but those wanted.
func (e *simEnv) externalCheck(t *testing.T, id *string, size int64, external []string, findings ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		c := e.Cluster(*id)
		got := c.ExternalNodes()
		if c.State != "Running" || c.ManagedWorkers() != size || got != int64(len(external)) {
			return fmt.Errorf("cluster is %s with %d workers and %d external nodes, want Running, %d and %d",
				c.State, c.ManagedWorkers(), got, size, len(external))
		}
		for _, x := range external {
			if _, ok := slices.BinarySearch(mapIDs(c), x); !ok {
				return fmt.Errorf("external node %s is not in the VM map", x)
			}
		}
		if err := e.checkRulesAndSSH(t, c, etcdFirewalls(int(size)+len(external), 3)); err != nil {
			return err
		}
		return e.expectDriftClean(c, findings...)
	}
}

func mapIDs(c *cloudstack.Cluster) []string {
	var out []string
	for _, vm := range c.VirtualMachines {
		out = append(out, vm.ID)
	}
	slices.Sort(out)
	return out
}

// expectDriftClean runs the drift check the data sources run, with the
// Kubernetes nodes read through the kubeconfig and the rules compared.
func (e *simEnv) expectDriftClean(c *cloudstack.Cluster, want ...string) error {
	checker := driftcheck.Checker{API: e.API}
	res, _, err := checker.Check(context.Background(), driftcheck.Request{ClusterID: c.ID, Options: driftcheck.Options{
		NodeSource: driftcheck.NodeSourceKubeconfig, CheckNetworkRules: true}})
	if err != nil {
		return fmt.Errorf("drift check: %w", err)
	}
	var kinds []string
	for _, f := range res.Findings {
		kinds = append(kinds, f.Kind)
	}
	slices.Sort(kinds)
	slices.Sort(want)
	if !slices.Equal(kinds, want) || len(res.Incomplete) > 0 {
		return fmt.Errorf("drift findings %v (incomplete %v), want %v: %+v", kinds, res.Incomplete, want, res.Findings)
	}
	return nil
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
					Config:           env.externalClusterConfig(size, version, true),
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
				Config:          env.externalClusterConfig(1, "1.33.13", false),
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

// expectNodeVersions checks the version the VM map records for VMs.
func (e *simEnv) expectNodeVersions(id *string, want map[*string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, vm := range e.Cluster(*id).VirtualMachines {
			for vmID, v := range want {
				if vm.ID == *vmID && strings.TrimPrefix(vm.KubernetesNodeVersion, "v") != v {
					return fmt.Errorf("VM %s is on %s, want %s", vm.Name, vm.KubernetesNodeVersion, v)
				}
			}
		}
		return nil
	}
}

// expectOnlyVMsLeft is a CheckDestroy for clusters with external nodes: no
// cluster and no rule is left, and the external nodes' VMs still run,
// outside any cluster; they are expunged afterwards.
func (e *simEnv) expectOnlyVMsLeft(vmIDs ...string) error {
	d := e.Sim.DumpState()
	var problems []string
	for _, c := range d.Clusters {
		if !c.Removed {
			problems = append(problems, fmt.Sprintf("cluster %s (%s) left", c.Name, c.State))
		}
	}
	for _, r := range d.Rules {
		problems = append(problems, fmt.Sprintf("%s rule %d-%d left", r.Purpose, r.StartPort, r.EndPort))
	}
	for _, v := range d.VMs {
		switch {
		case slices.Contains(vmIDs, v.ID) && (v.Expunged || v.State != "Running"):
			problems = append(problems, fmt.Sprintf("external node VM %s was destroyed (%s)", v.Name, v.State))
		case !slices.Contains(vmIDs, v.ID) && !v.Expunged:
			problems = append(problems, fmt.Sprintf("VM %s left", v.Name))
		}
	}
	for _, row := range d.VMMap {
		problems = append(problems, fmt.Sprintf("map row of VM %s left", row.VMID))
	}
	for _, id := range vmIDs {
		if err := e.Sim.ExpungeVM(id); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("after destroy: %s", strings.Join(problems, "; "))
	}
	return nil
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
		{Config: cfg(plain), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)vm_id.*not marked for CKS`)},
		{Config: cfg(elsewhere), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)vm_id.*default NIC`)},
	}})
	if n := env.Sim.CallCounts()["addNodesToKubernetesCluster"]; n != 0 {
		t.Errorf("%d add calls, want none", n)
	}
}

// TestAccClusterNode_importAndRecord imports a node another client joined:
// the plan records manual_upgrade in the VM's tag in place, and the destroy
// takes it out of the cluster while the cluster stays.
func TestAccClusterNode_importAndRecord(t *testing.T) {
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
	t.Parallel()
	env := newSimEnv(t)
	cfg := env.etcdClusterConfig(0, 1, fmt.Sprintf("  network_id = %q\n", env.Info.IsolatedNetworkID))
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
				ExpectError: regexp.MustCompile(`(?s)Cluster Has External Nodes.*gpu-1.*removeNodesFromKubernetesCluster`),
			},
			{
				PreConfig: func() {
					if env.liveClusters() != 1 || env.Sim.CallCounts()["deleteKubernetesCluster"] != 0 {
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
