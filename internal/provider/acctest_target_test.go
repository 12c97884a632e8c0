package provider

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// accTarget is the CloudStack an acceptance test talks to: the embedded
// simulator by default, or a real CloudStack under `make testacc-real`
// (CKS_ACC_TARGET=real), described by CLOUDSTACK_* credentials and the
// CKS_ACC_* ids below. Tests written against it run in both places.
type accTarget struct {
	apiURL, apiKey, secretKey string
	zoneID, offeringID        string
	versionID, keypair        string
}

func newAccTarget(t *testing.T) *accTarget {
	t.Helper()
	if os.Getenv("CKS_ACC_TARGET") != "real" {
		env := newSimEnv(t)
		return &accTarget{
			apiURL: env.Info.APIURL, apiKey: env.Info.APIKey, secretKey: env.Info.SecretKey,
			zoneID: env.Info.ZoneID, offeringID: env.Info.ServiceOfferingID,
			versionID: env.VersionID("1.33.13"), keypair: env.Info.Keypair,
		}
	}
	target := &accTarget{
		apiURL: os.Getenv(envAPIURL), apiKey: os.Getenv(envAPIKey), secretKey: os.Getenv(envSecretKey),
		zoneID: os.Getenv("CKS_ACC_ZONE_ID"), offeringID: os.Getenv("CKS_ACC_SERVICE_OFFERING_ID"),
		versionID: os.Getenv("CKS_ACC_KUBERNETES_VERSION_ID"), keypair: os.Getenv("CKS_ACC_KEYPAIR"),
	}
	var missing []string
	for name, v := range map[string]string{
		envAPIURL: target.apiURL, envAPIKey: target.apiKey, envSecretKey: target.secretKey,
		"CKS_ACC_ZONE_ID": target.zoneID, "CKS_ACC_SERVICE_OFFERING_ID": target.offeringID,
		"CKS_ACC_KUBERNETES_VERSION_ID": target.versionID,
	} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("make testacc-real needs %s", strings.Join(missing, ", "))
	}
	return target
}

func (a *accTarget) providerHCL() string {
	return fmt.Sprintf("provider \"cks\" {\n  api_url    = %q\n  api_key    = %q\n  secret_key = %q\n}\n", a.apiURL, a.apiKey, a.secretKey)
}

func (a *accTarget) client(t *testing.T) cloudstack.API {
	t.Helper()
	c, err := cloudstack.New(cloudstack.Config{APIURL: a.apiURL, APIKey: a.apiKey, SecretKey: a.secretKey})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// cluster is cks_cluster.portable with one control node, etcd separate
// etcd nodes (none for 0) and size workers, with the target's key pair
// when it has one.
func (a *accTarget) cluster(name string, size, etcd int) string {
	c := newClusterConfig(a.providerHCL(), name, a.zoneID, a.offeringID, a.versionID).named("portable").
		set("control_nodes", 1).etcd(etcd).size(size)
	if a.keypair != "" {
		c = c.set("keypair", a.keypair)
	}
	return c.String()
}

// scaleOutOfBand changes a cluster's size as another client would (the UI,
// cmk, the cluster autoscaler): one size-only scaleKubernetesCluster call.
func (a *accTarget) scaleOutOfBand(t *testing.T, clusterID string, size int64) {
	t.Helper()
	api := a.client(t)
	ref, err := api.ScaleKubernetesCluster(context.Background(), cloudstack.ScaleClusterParams{ID: clusterID, Size: &size})
	if err == nil {
		_, err = cloudstack.WaitForJob(context.Background(), api, ref.JobID, cloudstack.WaitOptions{Command: "scaleKubernetesCluster"})
	}
	if err != nil {
		t.Fatalf("scaling cluster %s to %d with the plain API: %v", clusterID, size, err)
	}
}

// TestAccClusterPortableLifecycle creates, scales up and down, and destroys a
// cluster using only the public API, so `make testacc-real` runs it against
// a real CloudStack exactly as `make test` runs it against the simulator.
func TestAccClusterPortableLifecycle(t *testing.T) {
	t.Parallel()
	target := newAccTarget(t)
	name := "tf-acc-portable-" + strings.ToLower(strings.ReplaceAll(t.Name(), "_", ""))[:8]
	var clusterID string
	accTest(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			if clusterID == "" {
				return nil
			}
			_, err := target.client(t).GetKubernetesCluster(context.Background(), clusterID)
			if !cloudstack.IsNotFound(err) {
				return fmt.Errorf("cluster %s still exists after destroy (err %v)", clusterID, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: target.cluster(name, 1, 0),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("cks_cluster.portable", tfjsonpath.New("state"), knownvalue.StringExact("Running")),
					statecheck.ExpectKnownValue("cks_cluster.portable", tfjsonpath.New("size"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue("cks_cluster.portable", tfjsonpath.New("nodes"), knownvalue.ListSizeExact(2)),
				},
				Check: func(s *terraform.State) error {
					clusterID = s.RootModule().Resources["cks_cluster.portable"].Primary.ID
					return nil
				},
			},
			{
				Config: target.cluster(name, 2, 0),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("cks_cluster.portable", plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("cks_cluster.portable", tfjsonpath.New("size"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue("cks_cluster.portable", tfjsonpath.New("nodes"), knownvalue.ListSizeExact(3)),
				},
			},
			{
				Config: target.cluster(name, 1, 0),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("cks_cluster.portable", tfjsonpath.New("size"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue("cks_cluster.portable", tfjsonpath.New("state"), knownvalue.StringExact("Running")),
				},
			},
			{
				Config:            target.cluster(name, 1, 0),
				ResourceName:      "cks_cluster.portable",
				ImportState:       true,
				ImportStateVerify: true,
				// Not returned by the API; see the resource documentation.
				ImportStateVerifyIgnore: []string{"node_root_disk_size", "hypervisor", "timeouts"},
			},
		},
	})
}

// TestAccClusterPortableEtcdScaleSequence is the scale-down hazard of
// clusters with separate etcd nodes (apache/cloudstack#14159), portable:
// a cluster with 3 etcd nodes goes 1 → 2 → 1 → 2 → 1 workers through the
// provider, then another client scales it twice with plain size-only calls,
// and every SSH rule stays in the provider's layout, with an empty plan
// after every apply. Against CloudStack 4.21 through 4.22.1.1 without the
// provider's layout, the second scale fails with 530.
func TestAccClusterPortableEtcdScaleSequence(t *testing.T) {
	t.Parallel()
	target := newAccTarget(t)
	name := "tf-acc-etcd-scale"
	var clusterID string
	inSync := func(size int) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue("cks_cluster.portable", tfjsonpath.New("size"), knownvalue.Int64Exact(int64(size))),
			statecheck.ExpectKnownValue("cks_cluster.portable", tfjsonpath.New("ssh_rules_in_sync"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue("cks_cluster.portable", tfjsonpath.New("cloudstack_state"), knownvalue.StringExact("Running")),
			statecheck.ExpectKnownValue("cks_cluster.portable", tfjsonpath.New("nodes"), knownvalue.ListSizeExact(1+3+size)),
		}
	}
	emptyAfter := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	steps := []resource.TestStep{{
		Config:            target.cluster(name, 1, 3),
		ConfigStateChecks: inSync(1),
		ConfigPlanChecks:  emptyAfter,
		Check: func(s *terraform.State) error {
			clusterID = s.RootModule().Resources["cks_cluster.portable"].Primary.ID
			return nil
		},
	}}
	for _, size := range []int{2, 1, 2, 1} {
		steps = append(steps, resource.TestStep{
			Config:            target.cluster(name, size, 3),
			ConfigStateChecks: inSync(size),
			ConfigPlanChecks:  emptyAfter,
		})
	}
	// Another client scales the cluster twice; the configuration follows.
	steps = append(steps,
		resource.TestStep{
			PreConfig:         func() { target.scaleOutOfBand(t, clusterID, 2) },
			Config:            target.cluster(name, 2, 3),
			ConfigStateChecks: inSync(2),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
		resource.TestStep{
			PreConfig:         func() { target.scaleOutOfBand(t, clusterID, 1) },
			Config:            target.cluster(name, 1, 3),
			ConfigStateChecks: inSync(1),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
	)
	accTest(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			if clusterID == "" {
				return nil
			}
			if _, err := target.client(t).GetKubernetesCluster(context.Background(), clusterID); !cloudstack.IsNotFound(err) {
				return fmt.Errorf("cluster %s still exists after destroy (err %v)", clusterID, err)
			}
			return nil
		},
		Steps: steps,
	})
}
