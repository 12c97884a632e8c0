package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// TestAccCluster_offerings changes the service offering. CloudStack refuses
// it for running KVM VMs, and the refusal is shown with the state
// unchanged; with state = "Stopped" the provider stops the cluster first and
// the change applies in place.
func TestAccCluster_offerings(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := func(offering, state string) string {
		return env.cluster("offerings").set("service_offering_id", offering).set("state", state).String()
	}
	medium, large := env.Info.ServiceOfferingID, env.Info.LargeServiceOfferingID
	sameID := statecheck.CompareValue(compare.ValuesSame())
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: config(medium, "Running"),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
					expectAttr("worker_offering_id", knownvalue.StringExact(medium)),
				},
			},
			{
				Config:      config(large, "Running"),
				ExpectError: errorFragments("Changing the service offering of cluster", "scaling Kubernetes cluster with running VMs on hypervisor KVM is not supported"),
			},
			{
				Config: config(large, "Stopped"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(clusterAddr, tfjsonpath.New("worker_offering_id")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
					expectAttr("state", knownvalue.StringExact("Stopped")),
					expectAttr("service_offering_id", knownvalue.StringExact(large)),
					expectAttr("control_offering_id", knownvalue.StringExact(large)),
					expectAttr("worker_offering_id", knownvalue.StringExact(large)),
				},
			},
			{
				Config: config(large, "Running"),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
					expectAttr("state", knownvalue.StringExact("Running")),
				},
			},
		},
	})
}

// TestAccCluster_serverLimits shows CloudStack's own limit on control_nodes
// + size (cloud.kubernetes.cluster.max.size) instead of hard-coding it.
func TestAccCluster_serverLimits(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{{
			Config: env.cluster("too-big").size(10).String(),
			ExpectError: errorFragments("Unable to Create Cluster", `CloudStack refused to create cluster "too-big"`,
				"must not exceed cloud.kubernetes.cluster.max.size: 10"),
		}},
	})
}

// TestAccCluster_autoscaling enables the autoscaler (size then follows
// CloudStack and never causes a diff, even when the autoscaler changes it),
// and turns it off again with a fixed size.
func TestAccCluster_autoscaling(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	version := env.VersionID("1.33.13")
	autoscaled := env.cluster("autoscaled").set("kubernetes_version_id", version).autoscaled(3).String()
	var id string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: autoscaled,
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("size", knownvalue.Int64Exact(1)),
					expectAttr("autoscaling", knownvalue.ObjectExact(map[string]knownvalue.Check{
						"enabled": knownvalue.Bool(true), "min_size": knownvalue.Int64Exact(1), "max_size": knownvalue.Int64Exact(3),
					})),
				},
				Check: recordClusterID(&id),
			},
			{
				// The autoscaler adds a worker: the refresh records size 2
				// and the plan stays empty.
				PreConfig: func() { env.autoscalerScales(t, id, 2) },
				Config:    autoscaled,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("size", knownvalue.Int64Exact(2)),
				},
			},
			{
				Config: env.cluster("autoscaled").set("kubernetes_version_id", version).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("size", knownvalue.Int64Exact(1)),
					expectAttr("autoscaling", knownvalue.Null()),
					expectAttr("nodes", nodeRoles("control", "worker")),
				},
			},
		},
	})
}

// TestAccCluster_importOutOfBand imports a cluster created through the API,
// in CKS's own rule layout: the first plan with a matching configuration
// replaces its single-port etcd SSH rule with the provider's etcd SSH range
// (ssh_rules_in_sync goes to true) and says so; after that apply the plan
// is empty.
func TestAccCluster_importOutOfBand(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	ctx := context.Background()
	api := env.API
	version := env.VersionID("1.33.13")
	ref, err := api.CreateKubernetesCluster(ctx, cloudstack.CreateClusterParams{
		Name: "imported", ZoneID: env.Info.ZoneID, KubernetesVersionID: version, ServiceOfferingID: env.Info.ServiceOfferingID,
		Size: 2, EtcdNodes: 1, Keypair: env.Info.Keypair, NodeRootDiskSize: 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.WaitJob(ref.JobID); err != nil {
		t.Fatal(err)
	}
	imported := env.cluster("imported").set("kubernetes_version_id", version).etcd(1).size(2).keypair()
	config := imported.String()
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config:             config,
				ResourceName:       clusterAddr,
				ImportState:        true,
				ImportStateId:      ref.ID,
				ImportStatePersist: true,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					a := states[0].Attributes
					if len(states) != 1 || a["size"] != "2" || a["nodes.#"] != "4" || a["ssh_rules_in_sync"] != "false" {
						return fmt.Errorf("imported %v", states)
					}
					return nil
				},
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(clusterAddr, tfjsonpathOf("ssh_rules_in_sync"), knownvalue.Bool(true)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("ssh_rules_in_sync", knownvalue.Bool(true))},
				Check:             env.checkCluster(t, clusterAddr, 2, etcdFirewalls(2, 1)),
			},
			{
				// node_root_disk_size is not returned by the API: setting it
				// on an imported cluster records it without a replacement.
				Config: imported.set("node_root_disk_size", 30).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("id", knownvalue.StringExact(ref.ID)),
					expectAttr("node_root_disk_size", knownvalue.Int64Exact(30)),
				},
			},
		},
	})
}

// TestAccCluster_disappears deletes the cluster out of band: the refresh
// drops it from state and the plan creates it again.
func TestAccCluster_disappears(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	config := env.cluster("vanishing").String()
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(s *terraform.State) error {
					id, err := clusterID(s)
					if err != nil {
						return err
					}
					ctx := context.Background()
					api := env.API
					ref, err := api.DeleteKubernetesCluster(ctx, id)
					if err == nil {
						err = env.WaitJob(ref.JobID)
					}
					return err
				},
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionCreate),
				}},
			},
		},
	})
}

// TestAccCluster_errorStateReplaced puts the cluster into Error, from which
// CloudStack only allows deleting it: the plan replaces it.
func TestAccCluster_errorStateReplaced(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	config := env.cluster("broken").String()
	var firstID string
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config:            config,
				ConfigStateChecks: []statecheck.StateCheck{newID.AddStateValue(clusterAddr, tfjsonpath.New("id"))},
				Check:             recordClusterID(&firstID),
			},
			{
				PreConfig: func() {
					if err := env.Sim.SetClusterState(firstID, "Error"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("state", knownvalue.StringExact("Running")),
					newID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
				},
				Check: func(*terraform.State) error {
					if n := len(env.liveClusters()); n != 1 {
						return fmt.Errorf("want one new cluster, have %d clusters", n)
					}
					return nil
				},
			},
		},
	})
}

// TestAccCluster_createStopped creates a cluster that should be stopped:
// createKubernetesCluster starts it, so the provider stops it afterwards.
func TestAccCluster_createStopped(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := func(state string) string {
		return env.cluster("parked").set("state", state).String()
	}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: config("Stopped"),
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("state", knownvalue.StringExact("Stopped")),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes").AtSliceIndex(0).AtMapKey("state"), knownvalue.StringExact("Stopped")),
				},
			},
			{
				Config: config("Running"),
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("state", knownvalue.StringExact("Running")),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes").AtSliceIndex(0).AtMapKey("state"), knownvalue.StringExact("Running")),
				},
			},
		},
	})
}
