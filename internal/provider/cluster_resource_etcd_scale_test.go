package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// etcdClusterConfig is a cluster with one control node, etcd separate etcd
// nodes and size workers, as in apache/cloudstack#14159.
func (e *simEnv) etcdClusterConfig(etcd, size int, extra string) string {
	return e.clusterHCL("cks-etcd-minimal", fmt.Sprintf(`
  kubernetes_version_id = %q
  etcd_nodes            = %d
  size                  = %d
  keypair               = %q
%s`, e.VersionID("1.33.13"), etcd, size, e.Info.Keypair, extra))
}

// emptyPlanAfterApply checks that the plan after an apply has nothing left.
var emptyPlanAfterApply = resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}

// etcdFirewalls are the firewall rules of a 1-control cluster with size
// workers and etcd etcd nodes in the provider's layout.
func etcdFirewalls(size, etcd int) []string {
	out := []string{fmt.Sprintf("2222-%d", 2222+size), "6443"}
	if etcd > 0 {
		out = append(out, fmt.Sprintf("50000-%d", 50000+max(etcd-1, 1)))
	}
	slices.Sort(out)
	return out
}

// TestAccCluster_scaleSequenceKeepsEverySSHPath scales, on every server
// profile, a cluster with separate etcd nodes 1→2→1→2→1 through the
// provider, then three times through the plain API as another client (the
// UI, cmk, the autoscaler) would: every scale succeeds, every SSH path
// works after each one, the state is what CloudStack reports, and the plan
// after every apply is empty. On 4.22.1.1 the plain API alone breaks such
// a cluster at its second scale. Clusters are configured without node
// offerings (CloudStack records the worker offering at the first scale)
// and with them.
func TestAccCluster_scaleSequenceKeepsEverySSHPath(t *testing.T) {
	t.Parallel()
	shapes := []struct {
		name          string
		etcd          int
		userNetwork   bool
		roleOfferings bool
	}{{"etcd3", 3, false, false}, {"etcd1", 1, false, false}, {"etcd3-user-network", 3, true, false}, {"etcd3-role-offerings", 3, false, true}}
	for _, profile := range simulator.Profiles() {
		for _, shape := range shapes {
			t.Run(profile+"/"+shape.name, func(t *testing.T) {
				t.Parallel()
				env := newSimEnv(t, simtest.WithProfile(profile))
				extra := ""
				if shape.userNetwork {
					extra = fmt.Sprintf("  network_id            = %q\n", env.Info.IsolatedNetworkID)
				}
				if shape.roleOfferings {
					extra += fmt.Sprintf("  control_offering_id   = %q\n  worker_offering_id    = %q\n  etcd_offering_id      = %q\n",
						env.Info.LargeServiceOfferingID, env.Info.ServiceOfferingID, env.Info.ServiceOfferingID)
				}
				var id string
				steps := []resource.TestStep{}
				for i, size := range []int{1, 2, 1, 2, 1} {
					step := resource.TestStep{
						Config:           env.etcdClusterConfig(shape.etcd, size, extra),
						ConfigPlanChecks: emptyPlanAfterApply,
						ConfigStateChecks: []statecheck.StateCheck{
							expectAttr("size", knownvalue.Int64Exact(int64(size))),
							expectAttr("ssh_rules_in_sync", knownvalue.Bool(true)),
						},
						Check: resource.ComposeTestCheckFunc(env.checkCluster(t, int64(size), etcdFirewalls(size, shape.etcd)),
							env.expectStateMatchesCloudStack(clusterAddr)),
					}
					if i == 0 {
						check := step.Check
						step.Check = func(s *terraform.State) error {
							var err error
							if id, err = clusterID(s); err != nil {
								return err
							}
							return check(s)
						}
					}
					steps = append(steps, step)
				}
				steps = append(steps, resource.TestStep{
					PreConfig: func() {
						for _, size := range []int64{2, 1, 2} {
							if shape.roleOfferings {
								// As the UI does: every node type at its offering,
								// which keeps CloudStack from moving the control
								// nodes to the service offering (KVM refuses it).
								env.rawScaleNamingOfferings(t, id, size)
							} else {
								env.rawScale(t, id, size)
							}
							c, err := env.API.GetKubernetesCluster(context.Background(), id)
							if err != nil {
								t.Fatal(err)
							}
							if err := env.checkRulesAndSSH(t, c, etcdFirewalls(int(size), shape.etcd)); err != nil {
								t.Fatalf("after another client's scale to %d: %v", size, err)
							}
						}
					},
					Config: env.etcdClusterConfig(shape.etcd, 2, extra),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectEmptyPlan(),
					}},
				})
				accTest(t, resource.TestCase{CheckDestroy: env.expectNothingLeft, Steps: steps})
			})
		}
	}
}

// rawScaleNamingOfferings scales the cluster through the plain API with
// every node type's current offering in nodeofferings, as the UI does, and
// requires success.
func (e *simEnv) rawScaleNamingOfferings(t *testing.T, id string, size int64) {
	t.Helper()
	c := e.Cluster(id)
	offerings := map[string]string{}
	for _, role := range []string{"control", "worker", "etcd"} {
		offerings[role] = clusterops.NodeOffering(c, role)
	}
	if err := e.ScaleWith(cloudstack.ScaleClusterParams{ID: id, Size: &size, NodeOfferings: offerings}); err != nil {
		t.Fatalf("scale to %d by another client: %v", size, err)
	}
}

// rawScale scales the cluster through the plain API and requires success.
func (e *simEnv) rawScale(t *testing.T, id string, size int64) {
	t.Helper()
	if err := e.Scale(id, size); err != nil {
		t.Fatalf("scale to %d by another client: %v", size, err)
	}
}

// checkCluster checks through the API that the cluster in state is Running
// with the size, has exactly the firewall rules and a forward to the right
// VM per node, and that SSH works on every forwarded port.
func (e *simEnv) checkCluster(t *testing.T, size int64, firewalls []string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id, err := clusterID(s)
		if err != nil {
			return err
		}
		ctx := context.Background()
		c, err := e.API.GetKubernetesCluster(ctx, id)
		if err != nil {
			return err
		}
		if c.State != "Running" || c.Size != size {
			return fmt.Errorf("cluster is %s with size %d, want Running with size %d", c.State, c.Size, size)
		}
		return e.checkRulesAndSSH(t, c, firewalls)
	}
}

// checkRulesAndSSH checks the firewall rules, the forwards (2222 to a
// control VM, every other node one port of 2223.., every etcd VM one port
// of 50000.., whatever order the API lists the VM map in) and SSH on each
// forwarded port.
func (e *simEnv) checkRulesAndSSH(t *testing.T, c *cloudstack.Cluster, firewalls []string) error {
	got := e.rulesOf(t, c)
	if !slices.Equal(got.Firewalls, firewalls) {
		return fmt.Errorf("firewall rules = %v, want %v", got.Firewalls, firewalls)
	}
	if err := checkForwardTargets(c, got.Forwards); err != nil {
		return err
	}
	ports := slices.Sorted(maps.Keys(got.Forwards))
	e.expectSSH(t, c.IPAddress, ports...)
	return nil
}

// checkForwardTargets checks public port -> VM forwards against the VM map:
// 2222 reaches a control VM, each other control or worker VM has one port
// of the node range and each etcd VM one port of the etcd range.
func checkForwardTargets(c *cloudstack.Cluster, forwards map[int]string) error {
	var nodes, etcd []string
	controls := map[string]bool{}
	for _, vm := range c.VirtualMachines {
		switch {
		case vm.IsEtcdNode:
			etcd = append(etcd, vm.ID)
		default:
			nodes = append(nodes, vm.ID)
			if strings.Contains(vm.Name, "-control-") {
				controls[vm.ID] = true
			}
		}
	}
	if !controls[forwards[2222]] {
		return fmt.Errorf("forward 2222 goes to VM %q, which is not a control VM", forwards[2222])
	}
	for _, r := range []struct {
		from int
		vms  []string
	}{{2222, nodes}, {50000, etcd}} {
		var have []string
		for port := r.from; port < r.from+len(r.vms); port++ {
			have = append(have, forwards[port])
		}
		slices.Sort(have)
		if want := slices.Sorted(slices.Values(r.vms)); !slices.Equal(have, want) {
			return fmt.Errorf("forwards %d..%d reach %v, want each of %v once", r.from, r.from+len(r.vms)-1, have, want)
		}
	}
	if want := len(nodes) + len(etcd); len(forwards) != want {
		return fmt.Errorf("forwards (public port -> VM) = %v, want exactly %d", forwards, want)
	}
	return nil
}
