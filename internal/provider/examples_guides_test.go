package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// The guides show their configurations from examples/guides (templates/
// include them with tffile), and the README's from its own hcl blocks. Each
// runs here against the simulator as a user runs it, verbatim, as the
// documents show it (doc_snippets_test.go).

// simVars are the names the simulator seeds, for the examples' variables.
func simVars(env *simEnv) []string {
	return []string{
		"CLOUDSTACK_API_URL=" + env.Info.APIURL,
		"CLOUDSTACK_API_KEY=" + env.Info.APIKey,
		"CLOUDSTACK_SECRET_KEY=" + env.Info.SecretKey,
		"TF_VAR_zone=sim-zone-1",
		"TF_VAR_service_offering=cks-medium",
		"TF_VAR_keypair=" + env.Info.Keypair,
	}
}

// knownHostsLine is the known_hosts line of a cluster's control node 1.
func knownHostsLine(t *testing.T, env *simEnv, name string) string {
	t.Helper()
	for _, c := range env.liveClusters() {
		if c.Name == name {
			return fmt.Sprintf("[%s]:2222 %s", c.IP, ssh.MarshalAuthorizedKey(env.Sim.HostKey(c.ID)))
		}
	}
	t.Fatalf("no cluster %s", name)
	return ""
}

func TestGuideEtcdScalingExample(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	run := newDocRun(t, "docs/guides/etcd-scaling.md")
	work := t.TempDir()
	writeFile(t, work, "cluster.tf", run.block(`resource "cks_cluster" "prod"`))
	vars := simVars(env)
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	r.terraform(work, nil, "validate", "-no-color")
	for _, size := range []string{"2", "1"} {
		applied := r.terraform(work, append(vars, "TF_VAR_size="+size), "apply", "-auto-approve", "-input=false", "-no-color")
		// The create makes the etcd SSH range and narrows the SSH rules to
		// ssh_cidrs, as every create does: logged, no warning.
		if size == "2" && strings.Contains(applied, "Warning:") {
			t.Fatalf("the successful create warns:\n%s", applied)
		}
		r.terraform(work, append(vars, "TF_VAR_size="+size), "plan", "-detailed-exitcode", "-input=false", "-no-color")
	}
	for _, fw := range env.FirewallRulesOn(env.Cluster(env.liveClusters()[0].ID).IPAddressID) {
		if fw.StartPort != 6443 && strings.Join(fw.CIDRList, ",") != "10.20.0.0/16,192.0.2.10/32" {
			t.Errorf("SSH rule %d-%d has CIDRs %v, want ssh_cidrs", fw.StartPort, fw.EndPort, fw.CIDRList)
		}
	}
	r.terraform(work, vars, "destroy", "-auto-approve", "-input=false", "-no-color")
	env.expectNothingLeftNow(t)
}

// The CI gates guide, block by block as written: the cluster, the host key
// pinned with ssh-keyscan, the gate (which passes, then fails on a stopped
// kubelet), the check block, the ignore rules and the outputs beside it;
// the policy gate's configuration is TestAccPolicyFixtures's. Then the CI
// gate example checks every cluster.
func TestGuideDriftGateExamples(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	const doc = "docs/guides/drift-ci-gates.md"
	run := newDocRun(t, doc)
	policyGate := run.find("fail_on_drift stays false")
	if example, err := os.ReadFile(filepath.Join("..", "..", "examples", "policy-gate", "main.tf")); err != nil ||
		run.blocks[policyGate].text != string(example) {
		t.Fatalf("the guide's policy gate configuration is not examples/policy-gate/main.tf, which TestAccPolicyFixtures runs (%v)", err)
	}
	run.elsewhere("fail_on_drift stays false", "TestAccPolicyFixtures")
	work := t.TempDir()
	vars := append(simVars(env), "TF_VAR_cluster_private_key_file="+env.KeyFile)
	converged := func() {
		t.Helper()
		r.terraform(work, nil, "validate", "-no-color")
		r.terraform(work, vars, "apply", "-auto-approve", "-input=false", "-no-color")
		r.emptyPlan(work, vars)
	}
	writeFile(t, work, "cluster.tf", run.block("# cluster.tf: the cluster the gate checks"))
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	converged()
	r.shellLines(work, vars, shBlock(t, doc, "ssh-keyscan"))
	writeFile(t, work, "gate.tf", run.block("# gate.tf: continues cluster.tf"))
	converged()
	writeFile(t, work, "check.tf", run.block("# check.tf: continues cluster.tf"))
	writeFile(t, work, "outputs.tf", run.block("# outputs.tf: continues gate.tf"))
	writeFile(t, work, "ignore.tf", run.block("# ignore.tf: continues cluster.tf"))
	converged()
	var out struct {
		Drift struct {
			Value struct {
				InSync bool `json:"in_sync"`
			}
		}
	}
	if err := json.Unmarshal([]byte(r.terraform(work, vars, "output", "-json")), &out); err != nil || !out.Drift.Value.InSync {
		t.Fatalf("drift output %+v, %v", out, err)
	}
	// The gate passes on a cluster in sync and fails once it drifted.
	r.terraform(work, vars, "plan", "-refresh-only", "-input=false", "-no-color", "-var", "fail_on_drift=true")
	vm := env.NthWorker(env.Cluster(env.liveClusters()[0].ID), 0)
	if err := env.Sim.StopKubelet(vm.ID, true); err != nil {
		t.Fatal(err)
	}
	gate := r.terraformFails(work, vars, "plan", "-refresh-only", "-input=false", "-no-color", "-var", "fail_on_drift=true")
	if !strings.Contains(gate, "node_not_ready") {
		t.Fatalf("the gate should fail on the stopped kubelet:\n%s", gate)
	}

	// The CI gate example checks every cluster.
	ci := r.copyExample(filepath.Join("..", "..", "examples", "ci-gate"))
	r.terraform(ci, nil, "init", "-input=false", "-no-color")
	ciVars := append(simVars(env), "TF_VAR_ssh_private_key_file="+env.KeyFile, "TF_VAR_known_hosts="+knownHostsLine(t, env, "prod"))
	ciGate := r.terraformFails(ci, ciVars, "plan", "-input=false", "-no-color", "-var", "fail_on_drift=true")
	if !strings.Contains(ciGate, "node_not_ready") {
		t.Fatalf("the CI gate example should fail on the stopped kubelet:\n%s", ciGate)
	}
	if err := env.Sim.StartKubelet(vm.ID); err != nil {
		t.Fatal(err)
	}
	r.terraform(ci, ciVars, "plan", "-input=false", "-no-color", "-var", "fail_on_drift=true")
	r.terraform(work, vars, "destroy", "-auto-approve", "-input=false", "-no-color")
	env.expectNothingLeftNow(t)
}

func TestGuideSimulatorExample(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	run := newDocRun(t, "docs/guides/simulator.md")
	work := t.TempDir()
	writeFile(t, work, "main.tf", run.block("simulator_info_file"))
	info, err := json.Marshal(env.Info)
	if err != nil {
		t.Fatal(err)
	}
	infoFile := filepath.Join(t.TempDir(), "cksim.json")
	if err := os.WriteFile(infoFile, info, 0o600); err != nil {
		t.Fatal(err)
	}
	vars := []string{"TF_VAR_simulator_info_file=" + infoFile}
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	r.terraform(work, nil, "validate", "-no-color")
	applied := r.terraform(work, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	r.terraform(work, vars, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	r.terraform(work, append(vars, "TF_VAR_fail_on_drift=true"), "plan", "-refresh-only", "-input=false", "-no-color")
	r.terraform(work, vars, "destroy", "-auto-approve", "-input=false", "-no-color")
	if !strings.Contains(applied, "Apply complete! Resources: 1 added") {
		t.Fatalf("apply:\n%s", applied)
	}
	env.expectNothingLeftNow(t)
}

// The migration guide's two paths, each from the official provider's
// configuration (served by its stand-in) to cks_cluster: a moved block,
// then a scale and a destroy; removed and import blocks.
func TestGuideMigrationExamples(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	r.env = append(r.env, reattached(t, officialStandInServers(t, env)))
	const doc = "docs/guides/migrating-from-the-cloudstack-provider.md"
	run := newDocRun(t, doc)
	// The CNI configuration the configurations read with file().
	calico := fencedBlock(t, doc, "yaml", "calico")
	vars := simVars(env)
	step := func(work, block string, extra ...string) string {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(work, "*.tf"))
		for _, f := range files {
			_ = os.Remove(f)
		}
		writeFile(t, work, "main.tf", block)
		writeFile(t, work, "calico.yaml", calico)
		r.terraform(work, nil, "init", "-input=false", "-no-color")
		r.terraform(work, nil, "validate", "-no-color")
		return r.terraform(work, append(append([]string{}, vars...), extra...), "apply", "-auto-approve", "-input=false", "-no-color")
	}
	before := run.block(`resource "cloudstack_kubernetes_cluster" "main"`)
	moved := run.block("\nmoved {")
	imported := run.block("import {")

	work := t.TempDir()
	step(work, before)
	id := env.liveClusters()[0].ID
	out := step(work, moved)
	for _, m := range []string{"cloudstack_kubernetes_version.v134 has moved to cks_kubernetes_version.v134",
		"cloudstack_cni_configuration.calico has moved to cks_cni_configuration.calico",
		"cloudstack_kubernetes_cluster.main has moved to cks_cluster.main", "0 added, 0 changed, 0 destroyed"} {
		if !strings.Contains(out, m) {
			t.Fatalf("the moved example should move the version, the CNI configuration and the cluster (%q):\n%s", m, out)
		}
	}
	r.terraform(work, vars, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	step(work, moved, "TF_VAR_size=4")
	if c := env.Cluster(id); c.Size != 4 {
		t.Fatalf("after the scale the moved cluster has size %d", c.Size)
	}
	r.terraform(work, vars, "destroy", "-auto-approve", "-input=false", "-no-color")
	env.expectNothingLeftNow(t)

	work = t.TempDir()
	step(work, before)
	ids := []string{"TF_VAR_cluster_id=" + env.liveClusters()[0].ID, "TF_VAR_version_id=" + versionNamed(t, env, "v1.34.9-sim-zone-1"),
		"TF_VAR_cni_configuration_id=" + cniNamed(t, env, "calico")}
	// The cluster's node_root_disk_size and cni_config_details, which the
	// API does not return, are recorded in place (the guide says so).
	if out := step(work, imported, ids...); !strings.Contains(out, "3 imported, 0 added, 1 changed, 0 destroyed") {
		t.Fatalf("the import example should import the version, the CNI configuration and the cluster:\n%s", out)
	}
	r.terraform(work, append(vars, ids...), "plan", "-detailed-exitcode", "-input=false", "-no-color")
	r.terraform(work, append(vars, ids...), "destroy", "-auto-approve", "-input=false", "-no-color")
	env.expectNothingLeftNow(t)
}

// versionNamed is the id of the simulator's version of that name.
func versionNamed(t *testing.T, env *simEnv, name string) string {
	t.Helper()
	versions, err := env.API.ListKubernetesSupportedVersions(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		if v.Name == name {
			return v.ID
		}
	}
	t.Fatalf("no Kubernetes version %s", name)
	return ""
}

// cniNamed is the id of the admin's CNI configuration of that name.
func cniNamed(t *testing.T, env *simEnv, name string) string {
	t.Helper()
	configs, err := env.API.ListCniConfigurations(t.Context(), cloudstack.ListCNIParams{Name: name})
	if err != nil || len(configs) != 1 {
		t.Fatalf("CNI configuration %s: %v %v", name, configs, err)
	}
	return configs[0].ID
}

// officialStandInServers serves the official provider's stand-in under
// both CLIs' addresses of cloudstack/cloudstack.
func officialStandInServers(t *testing.T, env *simEnv) map[string]func() tfprotov6.ProviderServer {
	t.Helper()
	factories := withOfficialStandIn(env)
	out := map[string]func() tfprotov6.ProviderServer{}
	for _, host := range mirrorHosts {
		server, err := factories["cloudstack"]()
		if err != nil {
			t.Fatal(err)
		}
		out[host+"/cloudstack/cloudstack"] = func() tfprotov6.ProviderServer { return server }
	}
	return out
}

// The README, as a new user runs it: the quick start with the -var values
// it declares and the three environment variables, its drift gate on the
// first apply; the SSH check after ssh-keyscan; each provider block beside
// the quick start's main.tf, the CloudMonkey profile's and the private CA's
// with what they name on disk. Every block runs verbatim.
func TestReadmeQuickStart(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	run := newDocRun(t, "README.md")
	run.elsewhere("provider_installation {", "internal/installtest (the filesystem mirror of a release)")
	creds := []string{
		"CLOUDSTACK_API_URL=" + env.Info.APIURL,
		"CLOUDSTACK_API_KEY=" + env.Info.APIKey,
		"CLOUDSTACK_SECRET_KEY=" + env.Info.SecretKey,
	}
	values := []string{"-var", "zone=sim-zone-1", "-var", "service_offering=cks-medium", "-var", "keypair=" + env.Info.Keypair}
	step := func(dir string, vars []string, args ...string) string {
		t.Helper()
		return r.terraform(dir, vars, append(append(args, "-input=false", "-no-color"), values...)...)
	}
	converged := func(dir string, vars []string) {
		t.Helper()
		r.terraform(dir, nil, "validate", "-no-color")
		step(dir, vars, "apply", "-auto-approve")
		step(dir, vars, "plan", "-detailed-exitcode")
	}

	work := t.TempDir()
	writeFile(t, work, "main.tf", run.block("# main.tf\n"))
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	r.terraform(work, nil, "validate", "-no-color")
	applied := step(work, creds, "apply", "-auto-approve")
	if !strings.Contains(applied, "data.cks_cluster_drift.prod: Read complete") {
		t.Fatalf("the quick start's drift check did not run on the first apply:\n%s", applied)
	}
	// The etcd SSH range the provider makes after every create is routine:
	// logged, not a warning users learn to ignore.
	if strings.Contains(applied, "Warning:") {
		t.Fatalf("the quick start's successful create warns:\n%s", applied)
	}
	step(work, creds, "plan", "-detailed-exitcode")
	// The CI gate passes on the new cluster, and fails once it drifted.
	step(work, creds, "plan", "-refresh-only", "-var", "ci=true")
	worker := env.NthWorker(env.Cluster(env.liveClusters()[0].ID), 0)
	if err := env.Sim.StopKubelet(worker.ID, true); err != nil {
		t.Fatal(err)
	}
	gate, _ := r.run(work, creds, append([]string{"plan", "-refresh-only", "-input=false", "-no-color", "-var", "ci=true"}, values...)...)
	if !strings.Contains(gate, "node_not_ready") || !strings.Contains(gate, "Cluster Drift Detected") {
		t.Fatalf("the quick start's gate should fail on the stopped kubelet:\n%s", gate)
	}
	if err := env.Sim.StartKubelet(worker.ID); err != nil {
		t.Fatal(err)
	}

	// The SSH check, once ssh-keyscan pinned control node 1's host key.
	r.shellLines(work, creds, shBlock(t, "README.md", "ssh-keyscan"))
	writeFile(t, work, "ssh.tf", run.block("# ssh.tf: continues main.tf"))
	converged(work, append(creds, "TF_VAR_ssh_private_key_file="+env.KeyFile, "TF_VAR_ci=true"))
	if err := os.Remove(filepath.Join(work, "ssh.tf")); err != nil {
		t.Fatal(err)
	}

	// The provider blocks, each beside main.tf.
	writeFile(t, work, "provider.tf", run.block("credentials from variables"))
	converged(work, []string{"TF_VAR_cloudstack_api_url=" + env.Info.APIURL, "TF_VAR_cloudstack_api_key=" + env.Info.APIKey,
		"TF_VAR_cloudstack_secret_key=" + env.Info.SecretKey})
	if err := os.MkdirAll(filepath.Join(r.home, ".cmk"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(r.home, ".cmk"), "config", fmt.Sprintf("[core]\nprofile = lab\n\n[production]\nurl = %s\napikey = %s\nsecretkey = %s\n",
		env.Info.APIURL, env.Info.APIKey, env.Info.SecretKey))
	writeFile(t, work, "provider.tf", run.block("credentials from a CloudMonkey profile"))
	converged(work, nil)
	step(work, creds, "destroy", "-auto-approve")
	env.expectNothingLeftNow(t)

	// The private CA, against a simulator that serves TLS with it.
	tlsEnv := &simEnv{simtest.Start(t, simtest.WithTLS())}
	tls := t.TempDir()
	writeFile(t, tls, "main.tf", run.block("# main.tf\n"))
	writeFile(t, tls, "provider.tf", run.block("a private CA and other settings"))
	ca, err := os.ReadFile(tlsEnv.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, tls, "private-ca.pem", string(ca))
	tlsCreds := []string{"CLOUDSTACK_API_URL=" + tlsEnv.Info.APIURL, "CLOUDSTACK_API_KEY=" + tlsEnv.Info.APIKey,
		"CLOUDSTACK_SECRET_KEY=" + tlsEnv.Info.SecretKey}
	r.terraform(tls, nil, "init", "-input=false", "-no-color")
	converged(tls, tlsCreds)
	step(tls, tlsCreds, "destroy", "-auto-approve")
	tlsEnv.expectNothingLeftNow(t)
}

// The provider example, with the simulator's URL in place of the example's.
func TestReadmeProviderBlocks(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	providerExample, err := os.ReadFile(filepath.Join("..", "..", "examples", "provider", "provider.tf"))
	if err != nil {
		t.Fatal(err)
	}
	const exampleURL = "https://cloud.example.com/client/api"
	if !strings.Contains(string(providerExample), exampleURL) {
		t.Fatalf("the provider example no longer has %s; the test no longer matches it", exampleURL)
	}
	hcl := strings.ReplaceAll(string(providerExample), exampleURL, env.Info.APIURL) + "data \"cks_zone\" \"probe\" {\n  name = \"sim-zone-1\"\n}\n"
	work := t.TempDir()
	writeFile(t, work, "main.tf", hcl)
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	out := r.terraform(work, []string{"TF_VAR_cloudstack_api_key=" + env.Info.APIKey, "TF_VAR_cloudstack_secret_key=" + env.Info.SecretKey},
		"apply", "-auto-approve", "-input=false", "-no-color")
	if !strings.Contains(out, "data.cks_zone.probe: Read complete") {
		t.Fatalf("the provider example did not reach the API:\n%s", out)
	}
}

// The `make demo` configuration, through its steps: create, scale up with
// the drift check on, the drift the demo injects seen by a refresh-only
// plan, destroy.
func TestDemoConfiguration(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	work := r.copyExample(filepath.Join("..", "..", "examples", "demo"))
	info := env.Info
	info.PrivateKeyFile = env.KeyFile
	data, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	infoFile := filepath.Join(t.TempDir(), "cksim.json")
	if err := os.WriteFile(infoFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	vars := []string{"TF_VAR_simulator_info_file=" + infoFile}
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	r.terraform(work, append(vars, "TF_VAR_size=1"), "apply", "-auto-approve", "-input=false", "-no-color")
	cluster := env.liveClusters()[0]
	withDrift := append(vars, "TF_VAR_size=2", "TF_VAR_ssh_host_key="+strings.TrimSpace(string(ssh.MarshalAuthorizedKey(env.Sim.HostKey(cluster.ID)))))
	r.terraform(work, withDrift, "apply", "-auto-approve", "-input=false", "-no-color")
	var out struct {
		Drift struct {
			Value struct {
				InSync bool `json:"in_sync"`
			}
		}
	}
	if err := json.Unmarshal([]byte(r.terraform(work, withDrift, "output", "-json")), &out); err != nil || !out.Drift.Value.InSync {
		t.Fatalf("the demo's drift output after the scale: %+v, %v", out, err)
	}
	if c := env.Cluster(cluster.ID); c.Size != 2 {
		t.Fatalf("the demo cluster has size %d after the scale", c.Size)
	}
	// The drift the demo injects: etcd node 2's SSH forward deleted. The
	// refresh-only plan evaluates every output with a node that has no
	// ssh_port.
	env.deleteClusterRules(t, func(rule simulator.DumpRule) bool {
		return rule.Purpose == "PortForwarding" && rule.StartPort == 50001
	}, 1)
	planFile := filepath.Join(t.TempDir(), "drift.tfplan")
	r.terraform(work, withDrift, "plan", "-refresh-only", "-input=false", "-no-color", "-out="+planFile)
	var plan struct {
		OutputChanges map[string]struct {
			After json.RawMessage `json:"after"`
		} `json:"output_changes"`
	}
	if err := json.Unmarshal([]byte(r.terraform(work, withDrift, "show", "-json", planFile)), &plan); err != nil {
		t.Fatal(err)
	}
	if after := string(plan.OutputChanges["cluster"].After); !strings.Contains(after, "ssh:no forward") {
		t.Fatalf("the demo's cluster output after the forward was deleted: %s", after)
	}
	if after := string(plan.OutputChanges["drift"].After); !strings.Contains(after, "etcd_ssh_rule_missing") {
		t.Fatalf("the demo's drift output after the forward was deleted: %s", after)
	}
	r.terraform(work, withDrift, "destroy", "-auto-approve", "-input=false", "-no-color")
	env.expectNothingLeftNow(t)
}
