package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// The policy library (policy/) is tested on plans, not on hand-written
// JSON: this test applies examples/policy-gate against the simulator, makes
// each situation a policy judges happen, and writes `terraform show -json`
// of a saved plan of each to <dir>/fixtures/<name>/plan.json, where `opa
// test policy/ <dir>` finds them as data.fixtures.<name>. make test runs it
// with CKS_POLICY_FIXTURES=<dir>, then runs opa test and conftest test on
// what it wrote, so a schema change that breaks a policy fails make test.
// Without the variable the plans go to a temporary directory, and the test
// still checks that each plan shows its situation.

// policyFixture is one plan the policies judge.
type policyFixture struct {
	name string
	// args are the plan's arguments besides -out.
	args []string
	// shows checks that the plan holds what the fixture is for.
	shows func(p planJSON) error
}

func TestAccPolicyFixtures(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("CKS_POLICY_FIXTURES")
	if dir == "" {
		dir = t.TempDir()
	}
	fixtures := filepath.Join(dir, "fixtures")
	// Fixtures of an earlier run must never pass for this one's.
	if err := os.RemoveAll(fixtures); err != nil {
		t.Fatal(err)
	}
	env := newSimEnv(t)
	r := newExampleRunner(t)
	work := r.copyExample(filepath.Join("..", "..", "examples", "policy-gate"))
	vars := []string{
		"CLOUDSTACK_API_URL=" + env.Info.APIURL,
		"CLOUDSTACK_API_KEY=" + env.Info.APIKey,
		"CLOUDSTACK_SECRET_KEY=" + env.Info.SecretKey,
		"TF_VAR_zone_id=" + env.Info.ZoneID,
		"TF_VAR_service_offering_id=" + env.Info.ServiceOfferingID,
		"TF_VAR_kubernetes_version_id=" + env.Info.KubernetesVersions["1.33.13"],
		"TF_VAR_keypair=" + env.Info.Keypair,
	}
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	r.terraform(work, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	cl := liveClusters(t, env)
	if len(cl) != 1 {
		t.Fatalf("the example should create one cluster, the simulator has %v", cl)
	}
	cluster := env.Cluster(cl[0].ID)
	worker := env.NthWorker(cluster, 0)
	node := strings.ToLower(worker.Name)

	plan := func(f policyFixture, in ...string) {
		t.Helper()
		dir := work
		if len(in) > 0 {
			dir = in[0]
			r.terraform(dir, nil, "init", "-input=false", "-no-color")
		}
		out := filepath.Join(t.TempDir(), "plan.tfplan")
		r.terraform(dir, vars, append([]string{"plan", "-input=false", "-no-color", "-lock=false", "-out=" + out}, f.args...)...)
		raw := r.terraform(dir, vars, "show", "-json", "-no-color", out)
		var p planJSON
		if err := json.Unmarshal([]byte(raw), &p); err != nil {
			t.Fatalf("%s: terraform show -json: %v\n%s", f.name, err, raw)
		}
		if err := f.shows(p); err != nil {
			t.Fatalf("fixture %s: %v", f.name, err)
		}
		path := filepath.Join(fixtures, f.name, "plan.json")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(raw), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	refreshOnly := func(extra ...string) []string { return append([]string{"-refresh-only"}, extra...) }
	notReady := fmt.Sprintf(`ignore=[{kind = "node_not_ready", node_name = "^%s$", reason = "OPS-42: kubelet under repair"%%s}]`, node)

	plan(policyFixture{"in_sync", refreshOnly(), func(p planJSON) error { return p.driftSummaries("in sync") }})
	if err := env.Sim.StopKubelet(worker.ID, true); err != nil {
		t.Fatal(err)
	}
	plan(policyFixture{"drifted", refreshOnly(), func(p planJSON) error { return p.driftSummaries("1 finding: 1 node_not_ready") }})
	plan(policyFixture{"ignored", refreshOnly("-var", fmt.Sprintf(notReady, "")), func(p planJSON) error {
		return p.driftSummaries("in sync; 1 finding ignored (1 node_not_ready)")
	}})
	plan(policyFixture{"ignore_expired", refreshOnly("-var", fmt.Sprintf(notReady, `, expires = "2020-01-01"`)),
		func(p planJSON) error { return p.driftSummaries("1 finding: 1 node_not_ready") }})
	shadowed := fmt.Sprintf(`ignore=[{kind = "node_not_ready", node_name = "^%s$", reason = "OPS-42: kubelet under repair"}, `+
		`{kind = "node_not_ready", reason = "OPS-43: any NotReady node"}]`, node)
	plan(policyFixture{"ignore_shadowed", refreshOnly("-var", shadowed), func(p planJSON) error {
		return p.driftSummaries("in sync; 1 finding ignored (1 node_not_ready)")
	}})
	if err := env.Sim.StartKubelet(worker.ID); err != nil {
		t.Fatal(err)
	}
	env.Sim.FailNextCalls("getKubernetesClusterConfig", 1000, 530, "Config not found for Kubernetes cluster : prod")
	plan(policyFixture{"incomplete", refreshOnly(), func(p planJSON) error {
		return p.driftSummaries("incomplete: no finding in the views checked; Kubernetes nodes not checked: " +
			"getting the kubeconfig: CloudStack API getKubernetesClusterConfig: error 530 (cserrorcode 4250): Config not found for Kubernetes cluster : prod")
	}})
	env.Sim.ClearFaults()
	plan(policyFixture{"scale_safe", []string{"-var", "size=2"}, func(p planJSON) error {
		return p.clusterChanges("update")
	}})
	plan(policyFixture{"replace", []string{"-var", "name=prod-2"}, func(p planJSON) error {
		return p.clusterChanges("delete", "create")
	}})
	plan(policyFixture{"destroy", []string{"-destroy"}, func(p planJSON) error { return p.clusterChanges("delete") }})
	// A second team creates a cluster open to the whole Internet, in a
	// working directory of its own.
	plan(policyFixture{"cidr_wide", []string{"-var", "name=edge", "-var", `ssh_cidrs=["0.0.0.0/0"]`}, func(p planJSON) error {
		return p.clusterChanges("create")
	}}, r.copyExample(filepath.Join("..", "..", "examples", "policy-gate")))
	addHazardRules(t, env, cluster)
	plan(policyFixture{"scale_hazard", []string{"-var", "size=2", "-var", "recreate_user_hazard_rules=true"}, func(p planJSON) error {
		if err := p.clusterChanges("update"); err != nil {
			return err
		}
		return p.fleetCount("scale_hazard", 1)
	}})
}

// addHazardRules adds, as a user would, a firewall rule 22-22 and a forward
// 22 -> 22 to the control VM on the cluster's IP: CloudStack's scale may
// revoke that rule instead of the node SSH range (apache/cloudstack#14159).
func addHazardRules(t *testing.T, env *simEnv, cl *cloudstack.Cluster) {
	t.Helper()
	ctx := context.Background()
	control := ""
	for _, vm := range cl.VirtualMachines {
		if strings.Contains(vm.Name, "-control-") {
			control = vm.ID
		}
	}
	ref, err := env.API.CreateFirewallRule(ctx, cloudstack.CreateFirewallRuleParams{IPAddressID: cl.IPAddressID, Protocol: "tcp",
		StartPort: 22, EndPort: 22, CIDRList: []string{"10.1.0.0/16"}})
	if err == nil {
		err = env.WaitJob(ref.JobID)
	}
	if err == nil {
		ref, err = env.API.CreatePortForwardingRule(ctx, cloudstack.CreatePortForwardingRuleParams{IPAddressID: cl.IPAddressID,
			Protocol: "tcp", PublicPort: 22, PublicEndPort: 22, PrivatePort: 22, PrivateEndPort: 22,
			VirtualMachineID: control, NetworkID: cl.NetworkID})
	}
	if err == nil {
		err = env.WaitJob(ref.JobID)
	}
	if err != nil {
		t.Fatalf("adding the user's SSH rules: %v", err)
	}
}

// planJSON is the part of `terraform show -json` the test checks.
type planJSON struct {
	PriorState struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address string         `json:"address"`
					Mode    string         `json:"mode"`
					Type    string         `json:"type"`
					Values  map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	} `json:"prior_state"`
	ResourceChanges []struct {
		Address string `json:"address"`
		Change  struct {
			Actions []string `json:"actions"`
		} `json:"change"`
	} `json:"resource_changes"`
}

// drift returns the values of the drift data source at address as the plan
// read them.
func (p planJSON) drift(address string) (map[string]any, error) {
	for _, r := range p.PriorState.Values.RootModule.Resources {
		if r.Address == address {
			return r.Values, nil
		}
	}
	return nil, fmt.Errorf("the plan did not read %s", address)
}

// driftSummaries checks the summary of both drift checks of the example.
func (p planJSON) driftSummaries(want string) error {
	single, err := p.drift("data.cks_cluster_drift.prod")
	if err != nil {
		return err
	}
	fleet, err := p.drift("data.cks_clusters_drift.fleet")
	if err != nil {
		return err
	}
	clusters, _ := fleet["clusters"].([]any)
	if len(clusters) != 1 {
		return fmt.Errorf("the fleet check has %d clusters, want 1", len(clusters))
	}
	one, _ := clusters[0].(map[string]any)
	for what, got := range map[string]any{"cks_cluster_drift": single["summary"], "cks_clusters_drift": one["summary"]} {
		if got != want {
			return fmt.Errorf("%s summary %q, want %q", what, got, want)
		}
	}
	return nil
}

// fleetCount checks the fleet check's count of a kind.
func (p planJSON) fleetCount(kind string, want float64) error {
	fleet, err := p.drift("data.cks_clusters_drift.fleet")
	if err != nil {
		return err
	}
	counts, _ := fleet["counts"].(map[string]any)
	if counts[kind] != want {
		return fmt.Errorf("fleet counts %v, want %v %s", counts, want, kind)
	}
	return nil
}

// clusterChanges checks the planned actions of the example's cluster.
func (p planJSON) clusterChanges(actions ...string) error {
	const address = "cks_cluster.prod"
	for _, rc := range p.ResourceChanges {
		if rc.Address == address {
			if strings.Join(rc.Change.Actions, ",") != strings.Join(actions, ",") {
				return fmt.Errorf("%s plans %v, want %v", address, rc.Change.Actions, actions)
			}
			return nil
		}
	}
	return fmt.Errorf("the plan has no change of %s", address)
}
