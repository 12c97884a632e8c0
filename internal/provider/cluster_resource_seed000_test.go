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
)

// seed000Config is the cluster of apache/cloudstack#14159: one control
// node, three etcd nodes and size workers.
func (e *simEnv) seed000Config(t *testing.T, size int, extra string) string {
	return e.clusterHCL("cks-etcd-minimal", fmt.Sprintf(`
  kubernetes_version_id = %q
  etcd_nodes            = 3
  size                  = %d
  keypair               = %q
%s`, e.VersionID(t, "1.33.13"), size, e.Info.Keypair, extra))
}

// TestAccCluster_seed000 runs the steps of seed 000 (create with three etcd
// nodes and one worker, size 2, size 1) through the provider. On profile
// 4.22.1.1 the plain API calls break the cluster; through the provider
// every apply succeeds and every SSH path works. Profile fixed must pass the
// same way.
func TestAccCluster_seed000(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{"4.22.1.1", "fixed"} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			env := newSimEnv(t, withProfile(profile))
			accTest(t, resource.TestCase{
				CheckDestroy: env.expectNothingLeft,
				Steps: []resource.TestStep{
					{
						Config: env.seed000Config(t, 1, ""),
						Check:  env.checkCluster(t, 1, []string{"2222-2223", "50000", "50001", "50002", "6443"}),
					},
					{
						Config: env.seed000Config(t, 2, ""),
						Check:  env.checkCluster(t, 2, []string{"2222-2224", "50000", "50001", "50002", "6443"}),
					},
					{
						Config: env.seed000Config(t, 1, ""),
						ConfigStateChecks: []statecheck.StateCheck{
							expectAttr("state", knownvalue.StringExact("Running")),
							expectAttr("size", knownvalue.Int64Exact(1)),
						},
						Check: env.checkCluster(t, 1, []string{"2222-2223", "50000", "50001", "50002", "6443"}),
					},
				},
			})
		})
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
		c, err := e.apiClient(t).GetKubernetesCluster(ctx, id)
		if err != nil {
			return err
		}
		if c.State != "Running" || c.Size != size {
			return fmt.Errorf("cluster is %s with size %d, want Running with size %d", c.State, c.Size, size)
		}
		return e.checkRulesAndSSH(ctx, t, c, firewalls)
	}
}

// checkRulesAndSSH checks the firewall rules, the forwards (2222+i to the
// i-th control or worker VM in map order, 50000+j to the j-th etcd VM) and
// SSH on each forwarded port.
func (e *simEnv) checkRulesAndSSH(ctx context.Context, t *testing.T, c *cloudstack.Cluster, firewalls []string) error {
	got := e.rulesOf(ctx, t, c)
	if !slices.Equal(got.Firewalls, firewalls) {
		return fmt.Errorf("firewall rules = %v, want %v", got.Firewalls, firewalls)
	}
	want := map[int]string{}
	var nodes, etcd int
	for _, vm := range c.VirtualMachines {
		if vm.IsEtcdNode {
			want[50000+etcd] = vm.ID
			etcd++
		} else {
			want[2222+nodes] = vm.ID
			nodes++
		}
	}
	if len(got.Forwards) != len(want) {
		return fmt.Errorf("forwards (public port -> VM) = %v, want %v", got.Forwards, want)
	}
	var ports []int
	for port, vm := range want {
		if got.Forwards[port] != vm {
			return fmt.Errorf("forward %d goes to VM %q, want %q", port, got.Forwards[port], vm)
		}
		ports = append(ports, port)
	}
	slices.Sort(ports)
	e.expectSSH(t, c.IPAddress, ports...)
	return nil
}

// breakLikeSeed000 scales the cluster in state 2 then 1 through the plain
// API, as the reporter of #14159 did, and checks that the buggy server
// broke it: Alert, stale size 2, one worker left.
func (e *simEnv) breakLikeSeed000(t *testing.T, id *string) func() {
	return func() {
		ctx := context.Background()
		api := e.apiClient(t)
		for _, size := range []int64{2, 1} {
			ref, err := api.ScaleKubernetesCluster(ctx, cloudstack.ScaleClusterParams{ID: *id, Size: &size})
			if err != nil {
				t.Fatalf("out-of-band scale to %d: %v", size, err)
			}
			_, err = cloudstack.WaitForJob(ctx, api, ref.JobID, clusterJobWait)
			if size == 2 && err != nil {
				t.Fatalf("out-of-band scale to 2: %v", err)
			}
			if size == 1 && err == nil {
				t.Fatal("the out-of-band scale to 1 succeeded; the 4.22.1.1 profile should reproduce #14159")
			}
		}
		c, err := api.GetKubernetesCluster(ctx, *id)
		if err != nil {
			t.Fatal(err)
		}
		if c.State != "Alert" || c.Size != 2 || len(c.VirtualMachines) != 5 {
			t.Fatalf("broken cluster is %s, size %d, %d VMs; want Alert, size 2, 5 VMs", c.State, c.Size, len(c.VirtualMachines))
		}
	}
}

// TestAccCluster_recovery breaks a cluster out of band the way seed 000
// did, then lets the provider recover it: without the opt-in the apply fails
// and explains it; with allow_restart_for_recovery the cluster comes back
// Running with size 1 and every rule in place.
func TestAccCluster_recovery(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t, withProfile("4.22.1.1"))
	var id string
	saveID := func(s *terraform.State) error {
		var err error
		id, err = clusterID(s)
		return err
	}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.seed000Config(t, 1, ""),
				Check:  saveID,
			},
			{
				// The refresh sees Alert and the stale size: the plan shows
				// an update, and apply refuses to restart without the opt-in.
				PreConfig: env.breakLikeSeed000(t, &id),
				Config:    env.seed000Config(t, 1, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
				}},
				ExpectError: regexpMust(`(?s)Cluster Needs Recovery.*state Alert with size 2 and 1 worker.*allow_restart_for_recovery`),
			},
			{
				PreConfig: func() {
					c, err := env.apiClient(t).GetKubernetesCluster(context.Background(), id)
					if err != nil || c.State != "Alert" || c.Size != 2 {
						t.Fatalf("the refused recovery changed the cluster: %+v, %v", c, err)
					}
				},
				Config: env.seed000Config(t, 1, "  allow_restart_for_recovery = true\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("state", knownvalue.StringExact("Running")),
					expectAttr("size", knownvalue.Int64Exact(1)),
					expectAttr("nodes", nodeRoles("etcd", "etcd", "etcd", "control", "worker")),
				},
				Check: env.checkCluster(t, 1, []string{"2222-2223", "50000", "50001", "50002", "6443"}),
			},
			{
				Config: env.seed000Config(t, 1, "  allow_restart_for_recovery = true\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
	})
}
