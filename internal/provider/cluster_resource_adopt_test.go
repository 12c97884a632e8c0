package provider

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	tfconfig "github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// adoptedConfig is the cluster "adopted" of one worker through the proxy.
func adoptedConfig(env *simEnv, proxy *faultProxy) string {
	return env.cluster("adopted").through(env.providerAt(proxy.URL())).String()
}

// importSteps import the cluster whose id *id holds (known only once the
// test runs) into cks_cluster.test with an import block, as the error's
// hint shows, and check that the state then holds it.
func importSteps(config string, id *string) []resource.TestStep {
	return []resource.TestStep{{
		Config: config + `
variable "import_id" {
  type = string
}

import {
  to = cks_cluster.test
  id = var.import_id
}
`,
		ConfigVariables: tfconfig.Variables{"import_id": lazyString{id}},
		Check: func(s *terraform.State) error {
			if got, err := clusterID(s); err != nil || got != *id {
				return fmt.Errorf("state holds %s (%v), want the imported %s", got, err, *id)
			}
			return nil
		},
	}}
}

// lazyString is a Terraform variable whose value is read when the step
// writes its variables, after the earlier steps set it.
type lazyString struct{ v *string }

func (l lazyString) MarshalJSON() ([]byte, error) { return json.Marshal(*l.v) }

// TestAccCluster_lostCreateResponseAdopted loses the response of a create
// that CloudStack executed. The provider does not send the create again: it
// finds the one new cluster with that name whose every create parameter
// matches, waits for it and adopts it.
func TestAccCluster_lostCreateResponseAdopted(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	proxy := newFaultProxy(t, env.Info.APIURL)
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{{
			PreConfig: func() { proxy.arm("createKubernetesCluster", hangUpAfterRun, 1) },
			Config:    adoptedConfig(env, proxy),
			ConfigStateChecks: []statecheck.StateCheck{
				expectAttr("state", knownvalue.StringExact("Running")),
				expectAttr("nodes", nodeRoles("control", "worker")),
			},
			Check: func(s *terraform.State) error {
				id, err := clusterID(s)
				if err != nil {
					return err
				}
				d := env.Sim.DumpState()
				if len(d.Clusters) != 1 || d.Clusters[0].ID != id {
					return fmt.Errorf("want exactly the adopted cluster %s, the simulator has %+v", id, d.Clusters)
				}
				if n := env.Sim.CallCounts()["createKubernetesCluster"]; n != 1 {
					return fmt.Errorf("createKubernetesCluster was sent %d times, want once", n)
				}
				return nil
			},
		}},
	})
}

// TestAccCluster_lostCreateRequestNotRetried loses a create request before
// it reaches CloudStack. The provider finds no such cluster and fails
// clearly instead of retrying; the next apply creates the cluster.
func TestAccCluster_lostCreateRequestNotRetried(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	proxy := newFaultProxy(t, env.Info.APIURL)
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { proxy.arm("createKubernetesCluster", hangUpUnsent, 1) },
				Config:    adoptedConfig(env, proxy),
				ExpectError: errorFragments("Unable to Create Cluster", `createKubernetesCluster for "adopted" got no answer`,
					"the request was sent but no answer came", `no cluster named "adopted" appeared`, "The create was not sent again"),
			},
			{
				PreConfig: func() {
					if n := len(env.liveClusters()); n != 0 {
						t.Fatalf("%d clusters exist after the lost request, want 0", n)
					}
				},
				Config: adoptedConfig(env, proxy),
				Check: func(*terraform.State) error {
					if n := len(env.liveClusters()); n != 1 {
						return fmt.Errorf("%d clusters exist, want 1", n)
					}
					return nil
				},
			},
		},
	})
}

// TestAccCluster_lostCreateOthersClusterNotAdopted: the create's answer is
// lost and it never ran, while somebody else created a cluster of the same
// name, zone and owner, with two workers. That cluster is not the one this
// create asked for: the provider names it, says how it differs and asks to
// import it rather than adopting it (which would have destroyed somebody
// else's cluster at the next apply). Importing it then works.
func TestAccCluster_lostCreateOthersClusterNotAdopted(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	proxy := newFaultProxy(t, env.Info.APIURL)
	var theirs string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: append([]resource.TestStep{
			{
				PreConfig: func() {
					proxy.insteadOfNext("createKubernetesCluster", func() { theirs = env.createOutOfBand(t, "shared", 2) })
				},
				Config: env.cluster("shared").through(env.providerAt(proxy.URL())).String(),
				ExpectError: errorFragments("Unable to Create Cluster", `createKubernetesCluster for "shared" got no answer`,
					"differ from the create's parameters, so none is adopted", "2 workers, not 1", "The create was not sent again",
					"terraform import <this resource's address>", "import {"),
			},
		}, importSteps(env.cluster("shared").size(2).through(env.providerAt(proxy.URL())).String(), &theirs)...),
	})
	if ids := env.liveIDs("shared"); len(ids) != 0 {
		t.Errorf("clusters left: %v", ids)
	}
}

// TestAccCluster_existingNameRefused: a cluster of the same name exists that
// no state knows about (made by a create whose answer was lost and that
// appeared late, or by a Terraform killed during create). The provider
// refuses to create a twin, names the cluster on the name attribute and shows
// how to import it; the import works.
func TestAccCluster_existingNameRefused(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	var existing string
	config := func(name string) string { return env.cluster(name).String() }
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: append([]resource.TestStep{
			{
				PreConfig: func() {
					existing = env.createOutOfBand(t, "Twin", 1)
					env.Sim.ResetCallCounts()
				},
				Config: config("twin"),
				ExpectError: errorFragments("Cluster Name Already Taken", `a Kubernetes cluster named "twin" already exists`,
					"so no other was created", "terraform import <this resource's address>", "import {", "create_before_destroy"),
			},
		}, importSteps(config("Twin"), &existing)...),
	})
	if n := env.Sim.CallCounts()["createKubernetesCluster"]; n != 0 {
		t.Errorf("the provider sent createKubernetesCluster %d times, want never", n)
	}
}

// TestAccCluster_lateCreateNotDuplicated: the create's answer is lost and
// CloudStack makes the cluster only after the provider stopped looking for
// it. The apply fails saying so; the next apply finds the cluster and refuses
// to create a second one, asking to import it.
func TestAccCluster_lateCreateNotDuplicated(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	proxy := newFaultProxy(t, env.Info.APIURL)
	var late string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: append([]resource.TestStep{
			{
				PreConfig:   func() { proxy.arm("createKubernetesCluster", hangUpRunLate, 1) },
				Config:      adoptedConfig(env, proxy),
				ExpectError: errorFragments("Unable to Create Cluster", `no cluster named "adopted" appeared`, "The create was not sent again"),
			},
			{
				PreConfig: func() {
					deadline := time.Now().Add(10 * time.Second)
					for len(env.liveIDs("adopted")) == 0 && time.Now().Before(deadline) {
						time.Sleep(50 * time.Millisecond)
					}
					ids := env.liveIDs("adopted")
					if len(ids) != 1 {
						t.Fatalf("the late create made %v", ids)
					}
					late = ids[0]
				},
				Config:      adoptedConfig(env, proxy),
				ExpectError: errorFragments("Cluster Name Already Taken", `named "adopted" already exists`, "terraform import"),
			},
		}, importSteps(adoptedConfig(env, proxy), &late)...),
	})
}

// TestAccCluster_createConnectionRefused: the create's connection is refused.
// The request was never sent, so nothing was created, and the error says so
// instead of calling the answer lost; the provider does not look for a
// cluster. The next apply creates it.
func TestAccCluster_createConnectionRefused(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	proxy := newFaultProxy(t, env.Info.APIURL)
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					env.Sim.ResetCallCounts()
					proxy.refuseAfterNext("listKubernetesClusters")
				},
				Config: adoptedConfig(env, proxy),
				ExpectError: errorFragments("Unable to Create Cluster", `createKubernetesCluster for "adopted" was never sent, so nothing was created`,
					"connection refused", "Check api_url"),
			},
			{
				PreConfig: func() {
					counts := env.Sim.CallCounts()
					if counts["createKubernetesCluster"] != 0 || counts["listKubernetesClusters"] != 1 {
						t.Fatalf("calls %v: want the check before the create only", counts)
					}
					proxy.resume()
				},
				Config: adoptedConfig(env, proxy),
				Check: func(*terraform.State) error {
					if n := len(env.liveClusters()); n != 1 {
						return fmt.Errorf("%d clusters exist, want 1", n)
					}
					return nil
				},
			},
		},
	})
}

// expectUntainted fails when cks_cluster.test is tainted.
func expectUntainted(s *terraform.State) error {
	rs, ok := s.RootModule().Resources[clusterAddr]
	if !ok {
		return fmt.Errorf("%s is not in state", clusterAddr)
	}
	if rs.Primary.Tainted {
		return fmt.Errorf("cluster %s is tainted although it is healthy", rs.Primary.ID)
	}
	return nil
}
