package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// policyGateVars are the credentials and variables of examples/policy-gate
// against the simulator.
func policyGateVars(env *simEnv) []string {
	return []string{
		"CLOUDSTACK_API_URL=" + env.Info.APIURL,
		"CLOUDSTACK_API_KEY=" + env.Info.APIKey,
		"CLOUDSTACK_SECRET_KEY=" + env.Info.SecretKey,
		"TF_VAR_zone_id=" + env.Info.ZoneID,
		"TF_VAR_service_offering_id=" + env.Info.ServiceOfferingID,
		"TF_VAR_kubernetes_version_id=" + env.Info.KubernetesVersions["1.33.13"],
		"TF_VAR_keypair=" + env.Info.Keypair,
	}
}

// policyFixture is one plan the policies judge.
type policyFixture struct {
	name string
	// args are the plan's arguments besides -out.
	args []string
	// shows checks that the plan holds what the fixture is for.
	shows func(p planJSON) error
	// deniedBy is the tag of the policy that denies the plan, "" when the
	// library passes it; warned lists tags it must warn with.
	deniedBy string
	warned   []string
}

// fixtureRun writes the fixtures of one test run: the plans of working
// directories of examples/policy-gate against one simulator.
type fixtureRun struct {
	t        *testing.T
	r        *exampleRunner
	vars     []string
	fixtures string
}

// plan saves a plan of dir as the fixture, checks what it shows and what
// the policy library (with examples/policy-gate/params.yaml) says about it.
func (fr *fixtureRun) plan(dir string, f policyFixture) {
	t := fr.t
	t.Helper()
	out := filepath.Join(t.TempDir(), "plan.tfplan")
	fr.r.terraform(dir, fr.vars, append([]string{"plan", "-input=false", "-no-color", "-lock=false", "-out=" + out}, f.args...)...)
	raw := fr.r.terraform(dir, fr.vars, "show", "-json", "-no-color", out)
	var p planJSON
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		t.Fatalf("%s: terraform show -json: %v\n%s", f.name, err, raw)
	}
	if err := f.shows(p); err != nil {
		t.Fatalf("fixture %s: %v", f.name, err)
	}
	path := filepath.Join(fr.fixtures, f.name, "plan.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	v := judgePlan(t, path)
	switch denied := tagged(v.Deny, f.deniedBy); {
	case f.deniedBy == "" && len(v.Deny) > 0:
		t.Errorf("fixture %s: the policy library denies it, and must pass it:\n%s", f.name, strings.Join(v.Deny, "\n"))
	case f.deniedBy != "" && len(denied) == 0:
		t.Errorf("fixture %s: the policy library does not deny it by [%s]; it denies %q", f.name, f.deniedBy, v.Deny)
	}
	for _, tag := range f.warned {
		if len(tagged(v.Warn, tag)) == 0 {
			t.Errorf("fixture %s: no [%s] warning; the warnings are %q", f.name, tag, v.Warn)
		}
	}
}

// byID makes the drift check of cks_cluster.prod in dir take the cluster's
// id from a literal, as a gate that is given the id does: Terraform then
// reads it in every plan, also one that changes the cluster, where a check
// on cks_cluster.prod.id runs only during apply. It returns the function
// that removes the override again.
func byID(t *testing.T, dir, id string) func() {
	t.Helper()
	file := filepath.Join(dir, "prod_override.tf")
	hcl := fmt.Sprintf("data \"cks_cluster_drift\" \"prod\" {\n  cluster_id = %q\n}\n", id)
	if err := os.WriteFile(file, []byte(hcl), 0o600); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAccPolicyFixtures(t *testing.T) {
	dependsOnTheCLI(t)
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
	example := filepath.Join("..", "..", "examples", "policy-gate")
	work := r.copyExample(example)
	fr := &fixtureRun{t: t, r: r, fixtures: fixtures, vars: policyGateVars(env)}
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	r.terraform(work, fr.vars, "apply", "-auto-approve", "-input=false", "-no-color")
	cl := env.liveClusters()
	if len(cl) != 1 {
		t.Fatalf("the example should create one cluster, the simulator has %v", cl)
	}
	cluster := env.Cluster(cl[0].ID)
	worker := env.NthWorker(cluster, 0)
	node := strings.ToLower(worker.Name)

	refreshOnly := func(extra ...string) []string { return append([]string{"-refresh-only"}, extra...) }
	notReady := fmt.Sprintf(`ignore=[{kind = "node_not_ready", node_name = "^%s$", reason = "OPS-42: kubelet under repair"%%s}]`, node)

	fr.plan(work, policyFixture{name: "in_sync", args: refreshOnly(), shows: func(p planJSON) error { return p.driftSummaries("in sync") }})
	if err := env.Sim.StopKubelet(worker.ID, true); err != nil {
		t.Fatal(err)
	}
	fr.plan(work, policyFixture{name: "drifted", args: refreshOnly(), deniedBy: "drift",
		shows: func(p planJSON) error { return p.driftSummaries("1 finding: 1 node_not_ready") }})
	fr.plan(work, policyFixture{name: "ignored", args: refreshOnly("-var", fmt.Sprintf(notReady, "")), warned: []string{"ignored"},
		shows: func(p planJSON) error { return p.driftSummaries("in sync; 1 finding ignored (1 node_not_ready)") }})
	fr.plan(work, policyFixture{name: "ignore_expired", args: refreshOnly("-var", fmt.Sprintf(notReady, `, expires = "2020-01-01"`)),
		deniedBy: "drift", shows: func(p planJSON) error { return p.driftSummaries("1 finding: 1 node_not_ready") }})
	shadowed := fmt.Sprintf(`ignore=[{kind = "node_not_ready", node_name = "^%s$", reason = "OPS-42: kubelet under repair"}, `+
		`{kind = "node_not_ready", reason = "OPS-43: any NotReady node"}]`, node)
	fr.plan(work, policyFixture{name: "ignore_shadowed", args: refreshOnly("-var", shadowed), warned: []string{"ignored", "ignore"},
		shows: func(p planJSON) error { return p.driftSummaries("in sync; 1 finding ignored (1 node_not_ready)") }})
	if err := env.Sim.StartKubelet(worker.ID); err != nil {
		t.Fatal(err)
	}
	env.Sim.FailNextCalls("getKubernetesClusterConfig", 1000, 530, "Config not found for Kubernetes cluster : prod")
	fr.plan(work, policyFixture{name: "incomplete", args: refreshOnly(), deniedBy: "incomplete", shows: func(p planJSON) error {
		return p.driftSummaries("incomplete: no finding in the views checked; Kubernetes nodes not checked: " +
			"getting the kubeconfig: CloudStack API getKubernetesClusterConfig: error 530 (cserrorcode 4250): Config not found for Kubernetes cluster : prod")
	}})
	env.Sim.ClearFaults()
	fr.plan(work, policyFixture{name: "scale_safe", args: []string{"-var", "size=2"}, shows: func(p planJSON) error {
		return p.clusterChanges("update")
	}})
	fr.plan(work, policyFixture{name: "replace", args: []string{"-var", "name=prod-2"}, deniedBy: "lifecycle", shows: func(p planJSON) error {
		return p.clusterChanges("delete", "create")
	}})
	fr.plan(work, policyFixture{name: "destroy", args: []string{"-destroy"}, deniedBy: "lifecycle",
		shows: func(p planJSON) error { return p.clusterChanges("delete") }})

	fr.pendingChanges(env, work, cluster, worker.ID)

	// A second team plans a cluster of its own, in a working directory of
	// its own: with the private ranges, and open to the whole Internet.
	edge := r.copyExample(example)
	r.terraform(edge, nil, "init", "-input=false", "-no-color")
	fr.plan(edge, policyFixture{name: "new_cluster", args: []string{"-var", "name=edge"}, shows: func(p planJSON) error {
		return p.clusterChanges("create")
	}})
	fr.plan(edge, policyFixture{name: "cidr_wide", args: []string{"-var", "name=edge", "-var", `ssh_cidrs=["0.0.0.0/0"]`}, deniedBy: "cidr",
		shows: func(p planJSON) error { return p.clusterChanges("create") }})

	// The allowed CIDR change applied, with a scale and an upgrade, on a
	// cluster of its own: the refresh-only plan after the apply finds it in
	// sync. (An offering change of running VMs is one KVM refuses: the
	// simulator's hypervisor.)
	stage := r.copyExample(example)
	r.terraform(stage, nil, "init", "-input=false", "-no-color")
	staged := slices.Concat([]string{"-var", "name=stage"}, sshCIDRsChange, apiCIDRsChange, sizeChange, versionChange(env))
	r.terraform(stage, fr.vars, "apply", "-auto-approve", "-input=false", "-no-color", "-var", "name=stage")
	r.terraform(stage, fr.vars, append([]string{"apply", "-auto-approve", "-input=false", "-no-color"}, staged...)...)
	fr.plan(stage, policyFixture{name: "changes_applied", args: refreshOnly(staged...), shows: func(p planJSON) error {
		return p.driftSummaries("in sync")
	}})

	addHazardRules(t, env, cluster)
	fr.plan(work, policyFixture{name: "scale_hazard", args: []string{"-var", "size=2", "-var", "recreate_user_hazard_rules=true"},
		deniedBy: "scale_hazard", shows: func(p planJSON) error {
			if err := p.clusterChanges("update"); err != nil {
				return err
			}
			return p.fleetCount("scale_hazard", 1)
		}})
}

// The changes of every attribute the drift checks compare: the CIDRs
// within params.yaml's allowed ones, one more worker, the large offering,
// the next Kubernetes minor version.
var (
	sshCIDRsChange = []string{"-var", `ssh_cidrs=["192.168.0.0/16"]`}
	apiCIDRsChange = []string{"-var", `api_cidrs=["172.16.0.0/12"]`}
	sizeChange     = []string{"-var", "size=2"}
)

func offeringChange(env *simEnv) []string {
	return []string{"-var", "service_offering_id=" + env.Info.LargeServiceOfferingID}
}

func versionChange(env *simEnv) []string {
	return []string{"-var", "kubernetes_version_id=" + env.Info.KubernetesVersions["1.34.2"]}
}

func everyChange(env *simEnv) []string {
	return slices.Concat(sshCIDRsChange, apiCIDRsChange, sizeChange, offeringChange(env), versionChange(env))
}

// pendingChanges writes the plans of a change of each attribute the drift
// checks compare, which pass, and of the same changes while CloudStack
// drifted, which the drift policy denies: the plan (ssh_cidrs
// changed within the allowed CIDRs) with the example as it is, where the
// fleet's check is read and the cluster's own only during apply; each
// change with both checks read (the cluster's own given the id), from
// which the policy tests take the single check and the fleet's apart.
func (fr *fixtureRun) pendingChanges(env *simEnv, work string, cluster *cloudstack.Cluster, workerID string) {
	t := fr.t
	mismatches := func(ssh, api float64) func(planJSON) error {
		return func(p planJSON) error {
			if err := p.clusterChanges("update"); err != nil {
				return err
			}
			if err := p.fleetCount("ssh_cidrs_mismatch", ssh); err != nil {
				return err
			}
			return p.fleetCount("api_rule_mismatch", api)
		}
	}
	pending := []string{"pending"}
	fr.plan(work, policyFixture{name: "ssh_cidrs_change", args: sshCIDRsChange, shows: mismatches(1, 0), warned: pending})

	unset := byID(t, work, cluster.ID)
	bothRead := func(check func(planJSON) error) func(planJSON) error {
		return func(p planJSON) error {
			if _, err := p.drift("data.cks_cluster_drift.prod"); err != nil {
				return err
			}
			return check(p)
		}
	}
	for _, c := range []struct {
		name   string
		args   []string
		ssh    float64
		api    float64
		warned []string
	}{
		{"pending_ssh_cidrs", sshCIDRsChange, 1, 0, pending},
		{"pending_api_cidrs", apiCIDRsChange, 0, 1, pending},
		{"pending_size", sizeChange, 0, 0, nil},
		{"pending_offering", offeringChange(env), 0, 0, nil},
		{"pending_version", versionChange(env), 0, 0, nil},
		{"pending_every_change", everyChange(env), 1, 1, pending},
	} {
		fr.plan(work, policyFixture{name: c.name, args: c.args, shows: bothRead(mismatches(c.ssh, c.api)), warned: c.warned})
	}

	// Someone opens SSH to everyone beside the cluster's own rule, and the
	// API likewise: drift, in the same plans.
	unset()
	wideSSH := env.addFirewall(t, cluster.IPAddressID, 2222, 2223, "0.0.0.0/0")
	fr.plan(work, policyFixture{name: "ssh_cidrs_change_widened", args: sshCIDRsChange, deniedBy: "drift", shows: mismatches(1, 0)})
	unset = byID(t, work, cluster.ID)
	fr.plan(work, policyFixture{name: "pending_ssh_cidrs_widened", args: sshCIDRsChange, deniedBy: "drift", shows: bothRead(mismatches(1, 0))})
	deleteRule := func(id string) {
		if err := env.Sim.DeleteRule(id); err != nil {
			t.Fatal(err)
		}
	}
	deleteRule(wideSSH)
	wideAPI := env.addFirewall(t, cluster.IPAddressID, 6443, 6443, "0.0.0.0/0")
	// Two api_rule_mismatch findings: the rule opened to everyone (drift),
	// and the cluster's rule with the CIDRs last applied, which the fleet's
	// check, given the new api_cidrs, reports as open beyond them (the
	// pending change).
	fr.plan(work, policyFixture{name: "pending_api_cidrs_widened", args: apiCIDRsChange, deniedBy: "drift", shows: bothRead(mismatches(0, 2))})
	deleteRule(wideAPI)
	// A kubelet stops while a plan changes everything the checks compare.
	if err := env.Sim.StopKubelet(workerID, true); err != nil {
		t.Fatal(err)
	}
	fr.plan(work, policyFixture{name: "pending_every_change_drifted", args: everyChange(env), deniedBy: "drift", warned: pending,
		shows: bothRead(func(p planJSON) error {
			if err := p.fleetCount("node_not_ready", 1); err != nil {
				return err
			}
			return mismatches(1, 1)(p)
		})})
	if err := env.Sim.StartKubelet(workerID); err != nil {
		t.Fatal(err)
	}
	unset()
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
