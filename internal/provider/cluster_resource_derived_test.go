package provider

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// A size change names the workers' offering, and CloudStack records it as
// the cluster's worker offering (KubernetesClusterScaleWorker.
// scaleKubernetesClusterSize). These tests make sure that no apply fails
// over such a value, which the configuration does not set.

// scaledCluster is one cluster of a scale sequence: the simulator it runs
// on, its address and its etcd nodes.
type scaledCluster struct {
	env  *simEnv
	addr string
	etcd int
}

// scaleSteps applies each size in turn to config(size): every apply is
// green and, for each cluster, every SSH path works after it, the state is
// what CloudStack reports, and the plan is empty.
func scaleSteps(t *testing.T, clusters []scaledCluster, sizes []int, config func(size int) string) []resource.TestStep {
	var steps []resource.TestStep
	for _, size := range sizes {
		var checks []resource.TestCheckFunc
		for _, c := range clusters {
			checks = append(checks,
				resource.TestCheckResourceAttr(c.addr, "size", strconv.Itoa(size)),
				resource.TestCheckResourceAttr(c.addr, "ssh_rules_in_sync", "true"),
				c.env.checkCluster(t, c.addr, int64(size), etcdFirewalls(size, c.etcd)),
				c.env.expectStateMatchesCloudStack(c.addr))
		}
		steps = append(steps, resource.TestStep{Config: config(size), ConfigPlanChecks: emptyPlanAfterApply,
			Check: resource.ComposeAggregateTestCheckFunc(checks...)})
	}
	return steps
}

// TestAccCluster_scaleWithoutRoleOfferingsAfterImport imports, on every
// profile, the README quick-start cluster created by another client with
// serviceofferingid alone (no node offering column set), then scales it
// 1→2→1→2→1. One configuration holds every profile's cluster, each through
// its own simulator.
func TestAccCluster_scaleWithoutRoleOfferingsAfterImport(t *testing.T) {
	t.Parallel()
	envs := newProfileEnvs(t)
	var clusters []scaledCluster
	var imports, offerings []string
	for _, p := range envs {
		c := p.NewCluster(cloudstack.CreateClusterParams{Name: "quickstart", ZoneID: p.Info.ZoneID,
			KubernetesVersionID: p.VersionID("1.33.13"), ServiceOfferingID: p.Info.ServiceOfferingID,
			ControlNodes: 1, EtcdNodes: 3, Size: 1, Keypair: p.Info.Keypair})
		if c.WorkerOfferingID != "" {
			t.Fatalf("%s: the cluster has a worker offering column (%s): the test needs one without", p.profile, c.WorkerOfferingID)
		}
		address := p.label + "_quickstart"
		clusters = append(clusters, scaledCluster{env: p.simEnv, addr: "cks_cluster." + address, etcd: 3})
		imports = append(imports, fmt.Sprintf("\nimport {\n  provider = %s\n  to       = cks_cluster.%s\n  id       = %q\n}\n", p.provider, address, c.ID))
		offerings = append(offerings, p.Info.ServiceOfferingID)
	}
	config := func(size int) string {
		var b strings.Builder
		b.WriteString(profileProviders(envs))
		for i, p := range envs {
			b.WriteString(p.cluster("quickstart").named(strings.TrimPrefix(clusters[i].addr, "cks_cluster.")).via(p).
				keypair().set("control_nodes", 1).etcd(3).size(size).with(imports[i]).String())
		}
		return b.String()
	}
	steps := scaleSteps(t, clusters, []int{1, 2, 1, 2, 1}, config)
	// The import records the one node offering the cluster's VMs run,
	// which CloudStack gives every node type.
	for i, c := range clusters {
		steps[0].Check = resource.ComposeAggregateTestCheckFunc(steps[0].Check,
			resource.TestCheckResourceAttr(c.addr, "worker_offering_id", offerings[i]))
	}
	accTest(t, profileTestCase(envs, resource.TestCase{CheckDestroy: expectNothingLeftOn(envs), Steps: steps}))
}

// TestAccCluster_scaleAfterMoveWithoutRoleOfferings moves a cluster of the
// official provider (created with a service offering alone) to cks_cluster
// and scales it 1→2→1→2→1.
func TestAccCluster_scaleAfterMoveWithoutRoleOfferings(t *testing.T) {
	if !inOwnProcess(t, officialNamespaceEnv) {
		return
	}
	env := newSimEnv(t)
	official := env.ProviderConfig(movedProviders, fmt.Sprintf(`
resource "cloudstack_kubernetes_cluster" "x" {
  name = "moved"
%s}
`, officialByNames(env, "")))
	moved := func(size int) string {
		return movedCluster(env).keypair().size(size).String()
	}
	steps := append([]resource.TestStep{{Config: official}},
		scaleSteps(t, []scaledCluster{{env: env, addr: "cks_cluster.x"}}, []int{1, 2, 1, 2, 1}, moved)...)
	steps[1].ConfigPlanChecks.PreApply = []plancheck.PlanCheck{plancheck.ExpectResourceAction("cks_cluster.x", plancheck.ResourceActionNoop)}
	accTest(t, resource.TestCase{ProtoV6ProviderFactories: withOfficialStandIn(env), CheckDestroy: env.expectNothingLeft, Steps: steps})
}

// TestAccCluster_scalePlansTheWorkerOfferingItRecords: the workers run
// another offering than the cluster's service offering, with no worker
// offering column (resized by an administrator). A size change names their
// offering, which CloudStack then records: the plan shows that value for
// worker_offering_id and says why, the apply is green and the next plan is
// empty.
func TestAccCluster_scalePlansTheWorkerOfferingItRecords(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	large := env.Info.LargeServiceOfferingID
	config := func(size int) string {
		return env.etcdCluster(1, size).String()
	}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: config(1),
				Check: func(s *terraform.State) error {
					id, err := clusterID(s)
					if err != nil {
						return err
					}
					for _, vm := range env.Cluster(id).VirtualMachines {
						if !vm.IsEtcdNode && vm.ID != "" && strings.Contains(vm.Name, "-node-") {
							if err := env.Sim.SetVMOffering(vm.ID, large); err != nil {
								return err
							}
						}
					}
					return nil
				},
			},
			{
				Config: config(2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("worker_offering_id"), knownvalue.StringExact(large)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("worker_offering_id", knownvalue.StringExact(large)),
					expectAttr("service_offering_id", knownvalue.StringExact(env.Info.ServiceOfferingID)),
				},
				Check: env.expectStateMatchesCloudStack(clusterAddr),
			},
		},
	})
}

// unmetPlan fails an apply only over what the configuration sets: a node
// offering left to CloudStack that it reports otherwise is kept as planned
// and reported apart.
func TestUnmetPlanSortsIntentFromDerived(t *testing.T) {
	t.Parallel()
	str := types.StringValue
	planned := clusterResourceModel{}
	planned.Size = types.Int64Value(2)
	planned.WorkerOfferingID, planned.ControlOfferingID, planned.ServiceOfferingID = str("w"), str("c"), str("s")
	got := planned
	got.Size = types.Int64Value(1)
	got.WorkerOfferingID, got.ControlOfferingID = str("other"), str("other")
	cfg := clusterResourceModel{}
	cfg.Size = types.Int64Value(2)
	cfg.ControlOfferingID = str("c")
	cfg.WorkerOfferingID = types.StringNull()
	cfg.ServiceOfferingID = str("s")
	cfg.EtcdOfferingID = types.StringNull()
	unmet, derived := unmetPlan(planned, &got, cfg)
	if names := valueNames(unmet); !slices.Equal(names, []string{"size", "control_offering_id"}) {
		t.Errorf("unmet %v, want size and control_offering_id", names)
	}
	if names := valueNames(derived); !slices.Equal(names, []string{"worker_offering_id"}) {
		t.Errorf("derived %v, want worker_offering_id", names)
	}
	if !got.WorkerOfferingID.Equal(str("w")) || !got.ControlOfferingID.Equal(str("other")) {
		t.Errorf("recorded worker %s (want the planned w), control %s (want CloudStack's)", got.WorkerOfferingID, got.ControlOfferingID)
	}
}

func valueNames(values []plannedValue) []string {
	var out []string
	for _, v := range values {
		out = append(out, v.name)
	}
	return out
}
