package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

const registryPassword = "Reg1stry-S3cret-Pa55"

// notReturnedInputs are the create-only inputs listKubernetesClusters does
// not return; the password is write-only and never in any state.
var notReturnedInputs = []string{"cni_config_details", "as_number", "docker_registry_url",
	"docker_registry_username", "docker_registry_password"}

// TestAccCluster_createOnlyInputs creates a cluster with every create-only
// input, checks the state and what CloudStack stored, imports it, and checks
// that the same configuration then plans nothing (or, after an import that
// lost the values CloudStack does not return, only an in-place record), and
// that changing one replaces the cluster. The password is in no state and no
// log. It also runs under OpenTofu (make test-opentofu): OpenTofu 1.12
// supports write-only attributes.
func TestAccCluster_createOnlyInputs(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "tf.log")
	if !inOwnProcess(t, map[string]string{"TF_LOG": "TRACE", "TF_ACC_LOG_PATH": logFile}) {
		return
	}
	logFile = os.Getenv("TF_ACC_LOG_PATH")
	env := newSimEnv(t, simtest.WithExperimentalFeatures())
	config := func(asNumber int) string {
		return env.cluster("extras").etcd(1).
			set("node_templates", map[string]string{"WORKER": env.Info.NodeTemplateID, "ETCD": env.Info.NodeTemplateID}).
			set("cni_configuration_id", env.Info.CNIConfigurationID).
			set("cni_config_details", map[string]string{"podCidr": "10.244.0.0/16", "MTU": "1450"}).
			set("as_number", asNumber).
			set("docker_registry_url", "https://registry.example.com").
			set("docker_registry_username", "puller").
			set("docker_registry_password", registryPassword).
			set("enable_csi", true).
			with(`
data "cks_cluster" "by_id" {
  id = cks_cluster.test.id
}

data "cks_cluster_drift" "test" {
  cluster_id  = cks_cluster.test.id
  node_source = "none"
}

data "cks_clusters_drift" "all" {
  node_source = "none"
  depends_on  = [cks_cluster.test]
}
`).String()
	}
	stored := func(s *terraform.State) error {
		id, err := clusterID(s)
		if err != nil {
			return err
		}
		var c *simulator.DumpCluster
		for _, dc := range env.Sim.DumpState().Clusters {
			if dc.ID == id {
				c = &dc
			}
		}
		switch {
		case c == nil:
			return fmt.Errorf("cluster %s not in the simulator", id)
		case c.NodeTemplates["WORKER"] != env.Info.NodeTemplateID || c.NodeTemplates["ETCD"] != env.Info.NodeTemplateID:
			return fmt.Errorf("stored node templates %v", c.NodeTemplates)
		case c.CNIConfigurationID != env.Info.CNIConfigurationID || c.CNIConfigDetails["podCidr"] != "10.244.0.0/16" || c.CNIConfigDetails["MTU"] != "1450":
			return fmt.Errorf("stored CNI %s %v", c.CNIConfigurationID, c.CNIConfigDetails)
		case c.ASNumber == nil || *c.ASNumber != 64512 || !c.CSIEnabled:
			return fmt.Errorf("stored AS number %v, CSI %v", c.ASNumber, c.CSIEnabled)
		case c.DockerRegistryURL != "https://registry.example.com" || c.DockerRegistryUsername != "puller":
			return fmt.Errorf("stored registry %s %s", c.DockerRegistryURL, c.DockerRegistryUsername)
		case !env.Sim.DockerRegistryPasswordIs(id, registryPassword):
			return fmt.Errorf("the registry password did not reach CloudStack")
		}
		return nil
	}
	noPasswordInState := func(s *terraform.State) error {
		for addr, rs := range s.RootModule().Resources {
			for k, v := range rs.Primary.Attributes {
				if strings.Contains(v, registryPassword) {
					return fmt.Errorf("%s.%s holds the registry password", addr, k)
				}
			}
		}
		return nil
	}
	str := func(attr, want string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New(attr), knownvalue.StringExact(want))
	}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: config(64512),
				Check:  resource.ComposeAggregateTestCheckFunc(stored, noPasswordInState),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("node_templates").AtMapKey("WORKER"), knownvalue.StringExact(env.Info.NodeTemplateID)),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("node_templates").AtMapKey("ETCD"), knownvalue.StringExact(env.Info.NodeTemplateID)),
					str("cni_configuration_id", env.Info.CNIConfigurationID),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("cni_config_details").AtMapKey("MTU"), knownvalue.StringExact("1450")),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("as_number"), knownvalue.Int64Exact(64512)),
					str("docker_registry_url", "https://registry.example.com"),
					str("docker_registry_username", "puller"),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("docker_registry_password"), knownvalue.Null()),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("enable_csi"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("external_load_balancer_ip"), knownvalue.Null()),
					str("kubernetes_version", "1.33.13"),
					statecheck.ExpectKnownValue("data.cks_cluster.by_id", tfjsonpath.New("kubernetes_version"), knownvalue.StringExact("1.33.13")),
					statecheck.ExpectKnownValue("data.cks_cluster_drift.test", tfjsonpath.New("kubernetes_version"), knownvalue.StringExact("1.33.13")),
					statecheck.ExpectKnownValue("data.cks_clusters_drift.all", tfjsonpath.New("clusters").AtSliceIndex(0).AtMapKey("kubernetes_version"),
						knownvalue.StringExact("1.33.13")),
				},
			},
			{
				// cni_configuration_id, enable_csi and kubernetes_version come back from CloudStack.
				ResourceName:            clusterAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: notReturnedInputs,
			},
			{Config: config(64512), PlanOnly: true},
			{
				// A create-only input changes: CloudStack cannot change it.
				Config: config(64513),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionReplace),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(noPasswordInState, func(s *terraform.State) error {
					id, err := clusterID(s)
					if err != nil {
						return err
					}
					if !env.Sim.DockerRegistryPasswordIs(id, registryPassword) {
						return fmt.Errorf("the replacement did not get the registry password")
					}
					return nil
				}),
			},
		},
	})
	raw, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatalf("reading the Terraform log: %v", err)
	}
	if len(raw) == 0 {
		t.Fatal("the Terraform log is empty; the check would prove nothing")
	}
	// terraform-plugin-testing echoes each step's configuration into the
	// log ("  | " lines), which holds the password as written; everything
	// Terraform and the provider log must not.
	for i, line := range strings.Split(string(raw), "\n") {
		if strings.Contains(line, registryPassword) && !strings.HasPrefix(line, "  | ") {
			t.Errorf("the Terraform log holds the registry password at line %d", i+1)
		}
	}
}

// TestAccCluster_importedCreateOnlyInputsAreRecorded imports a cluster made
// outside Terraform with create-only inputs: the configuration that sets
// them then plans an in-place update that only records them, not a
// replacement, and after it nothing.
func TestAccCluster_importedCreateOnlyInputsAreRecorded(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	cl := env.NewCluster(cloudstack.CreateClusterParams{Name: "imported", ZoneID: env.Info.ZoneID,
		KubernetesVersionID: env.VersionID("1.33.13"), ServiceOfferingID: env.Info.ServiceOfferingID, Size: 1,
		ClusterExtras: cloudstack.ClusterExtras{NodeTemplates: map[string]string{"WORKER": env.Info.NodeTemplateID},
			CNIConfigurationID: env.Info.CNIConfigurationID, CNIConfigDetails: map[string]string{"MTU": "1450"},
			ASNumber: 64512, EnableCSI: true}})
	config := env.cluster("imported").
		set("node_templates", map[string]string{"WORKER": env.Info.NodeTemplateID}).
		set("cni_configuration_id", env.Info.CNIConfigurationID).
		set("cni_config_details", map[string]string{"MTU": "1450"}).
		set("as_number", 64512).
		set("enable_csi", true).
		keypair().String()
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config, ResourceName: clusterAddr, ImportState: true, ImportStateId: cl.ID, ImportStatePersist: true,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					a := states[0].Attributes
					if a["cni_configuration_id"] != env.Info.CNIConfigurationID || a["enable_csi"] != "true" || a["kubernetes_version"] != "1.33.13" {
						return fmt.Errorf("imported cni_configuration_id=%q enable_csi=%q kubernetes_version=%q",
							a["cni_configuration_id"], a["enable_csi"], a["kubernetes_version"])
					}
					// The node templates come from the VM map's templates.
					if a["node_templates.%"] != "1" || a["node_templates.WORKER"] != env.Info.NodeTemplateID {
						return fmt.Errorf("imported node_templates: %q entries, WORKER=%q", a["node_templates.%"], a["node_templates.WORKER"])
					}
					if a["as_number"] != "" || a["cni_config_details.%"] != "" {
						return fmt.Errorf("values CloudStack does not return were imported: as_number=%q cni_config_details=%q",
							a["as_number"], a["cni_config_details.%"])
					}
					return nil
				},
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("as_number"), knownvalue.Int64Exact(64512)),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("id"), knownvalue.StringExact(cl.ID)),
				},
			},
			{Config: config, PlanOnly: true},
		},
	})
}

// TestAccCluster_createOnlyInputsRejectedAtPlan checks the plan-time
// validation, each error on its attribute.
func TestAccCluster_createOnlyInputsRejectedAtPlan(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	cases := []struct {
		attr  string
		value any
		want  string
	}{
		{"node_templates", hcl(`{ master = "t" }`), `"master" is not a node type`},
		{"node_templates", hcl(`{ DEFAULT = "t" }`), `ignores it`},
		{"node_templates", hcl(`{ worker = "a", WORKER = "b" }`), `name the same node type`},
		{"as_number", 0, `must be between 1 and 4294967295, got: 0`},
		{"as_number", int64(4294967296), `must be between 1 and 4294967295, got: 4294967296`},
		{"external_load_balancer_ip", "10.0.0.300", `external_load_balancer_ip: "10.0.0.300" is not an IPv4 or IPv6 address`},
		{"external_load_balancer_ip", "192.0.2.10", `network_id`},
		{"docker_registry_url", "registry.example.com:5000", `scheme and host`},
		{"cni_config_details", hcl(`{ MTU = "1450" }`), `cni_configuration_id`},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, c := range cases {
		steps = append(steps, resource.TestStep{Config: env.cluster("bad").set(c.attr, c.value).String(), PlanOnly: true,
			ExpectError: errorFragments(c.want)})
	}
	accTest(t, resource.TestCase{Steps: steps})
}
