package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
// runs here against the simulator as a user runs it.

var guideExamples = filepath.Join("..", "..", "examples", "guides")

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
	for _, c := range liveClusters(t, env) {
		if c.Name == name {
			return fmt.Sprintf("[%s]:2222 %s", c.IP, ssh.MarshalAuthorizedKey(env.Sim.HostKey(c.ID)))
		}
	}
	t.Fatalf("no cluster %s", name)
	return ""
}

func TestGuideEtcdScalingExample(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	work := r.copyExample(filepath.Join(guideExamples, "etcd-scaling"))
	vars := simVars(env)
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	for _, size := range []string{"2", "1"} {
		r.terraform(work, append(vars, "TF_VAR_size="+size), "apply", "-auto-approve", "-input=false", "-no-color")
		r.terraform(work, append(vars, "TF_VAR_size="+size), "plan", "-detailed-exitcode", "-input=false", "-no-color")
	}
	for _, fw := range env.FirewallRulesOn(env.Cluster(liveClusters(t, env)[0].ID).IPAddressID) {
		if fw.StartPort != 6443 && strings.Join(fw.CIDRList, ",") != "10.20.0.0/16,192.0.2.10/32" {
			t.Errorf("SSH rule %d-%d has CIDRs %v, want ssh_cidrs", fw.StartPort, fw.EndPort, fw.CIDRList)
		}
	}
	r.terraform(work, vars, "destroy", "-auto-approve", "-input=false", "-no-color")
	env.expectNothingLeftNow(t)
}

func TestGuideDriftGateExamples(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	// The cluster first, then the gate, which pins its host key.
	work := r.copyExample(filepath.Join(guideExamples, "drift-ci-gates"), "gate.tf", "check.tf", "outputs.tf")
	vars := append(simVars(env), "TF_VAR_cluster_private_key_file="+env.KeyFile)
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	r.terraform(work, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	for _, f := range []string{"gate.tf", "check.tf", "outputs.tf"} {
		data, err := os.ReadFile(filepath.Join(guideExamples, "drift-ci-gates", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, f), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(work, "known_hosts"), []byte(knownHostsLine(t, env, "prod")), 0o600); err != nil {
		t.Fatal(err)
	}
	r.terraform(work, vars, "apply", "-auto-approve", "-input=false", "-no-color")
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
	vm := env.NthWorker(env.Cluster(liveClusters(t, env)[0].ID), 0)
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
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	work := r.copyExample(filepath.Join(guideExamples, "simulator"))
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
	applied := r.terraform(work, vars, "apply", "-auto-approve", "-input=false", "-no-color")
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
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	r.env = append(r.env, reattached(t, officialStandInServers(t, env)))
	dir := filepath.Join(guideExamples, "migrating-from-the-cloudstack-provider")
	vars := simVars(env)
	step := func(work, example string, extra ...string) string {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(work, "*.tf"))
		for _, f := range files {
			_ = os.Remove(f)
		}
		data, err := os.ReadFile(filepath.Join(dir, example, "main.tf"))
		if err != nil {
			t.Fatal(err)
		}
		if example == "import" {
			// Its terraform block is the one of the moved example.
			data = append(data, []byte(movedTerraformBlock(t, dir))...)
		}
		if err := os.WriteFile(filepath.Join(work, "main.tf"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		// The CNI configuration the examples read with file().
		cni, err := os.ReadFile(filepath.Join(dir, "calico.yaml"))
		if err == nil {
			err = os.WriteFile(filepath.Join(work, "calico.yaml"), cni, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
		r.terraform(work, nil, "init", "-input=false", "-no-color")
		return r.terraform(work, append(append([]string{}, vars...), extra...), "apply", "-auto-approve", "-input=false", "-no-color")
	}

	work := t.TempDir()
	step(work, "before")
	id := liveClusters(t, env)[0].ID
	moved := step(work, "moved")
	for _, m := range []string{"cloudstack_kubernetes_version.v134 has moved to cks_kubernetes_version.v134",
		"cloudstack_cni_configuration.calico has moved to cks_cni_configuration.calico",
		"cloudstack_kubernetes_cluster.main has moved to cks_cluster.main", "0 added, 0 changed, 0 destroyed"} {
		if !strings.Contains(moved, m) {
			t.Fatalf("the moved example should move the version, the CNI configuration and the cluster (%q):\n%s", m, moved)
		}
	}
	step(work, "moved", "TF_VAR_size=4")
	if c := env.Cluster(id); c.Size != 4 {
		t.Fatalf("after the scale the moved cluster has size %d", c.Size)
	}
	r.terraform(work, vars, "destroy", "-auto-approve", "-input=false", "-no-color")
	env.expectNothingLeftNow(t)

	work = t.TempDir()
	step(work, "before")
	ids := []string{"TF_VAR_cluster_id=" + liveClusters(t, env)[0].ID, "TF_VAR_version_id=" + versionNamed(t, env, "v1.34.9-sim-zone-1"),
		"TF_VAR_cni_configuration_id=" + cniNamed(t, env, "calico")}
	imported := step(work, "import", ids...)
	// The cluster's node_root_disk_size and cni_config_details, which the
	// API does not return, are recorded in place (the guide says so).
	if !strings.Contains(imported, "3 imported, 0 added, 1 changed, 0 destroyed") {
		t.Fatalf("the import example should import the version, the CNI configuration and the cluster:\n%s", imported)
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

// movedTerraformBlock is the terraform block of the moved example, which
// the guide's import example ("resource as above") shares.
func movedTerraformBlock(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "moved", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)^terraform \{.*?\n\}\n`).FindString(string(data))
	if block == "" {
		t.Fatal("the moved example has no terraform block")
	}
	return "\n" + block
}

// officialStandInServers serves the official provider's stand-in under
// both CLIs' addresses of cloudstack/cloudstack.
func officialStandInServers(t *testing.T, env *simEnv) map[string]func() tfprotov6.ProviderServer {
	t.Helper()
	factories := env.withOfficialStandIn()
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

// readmeBlocks are the hcl blocks of README.md that configure Terraform, in
// order.
func readmeBlocks(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```hcl\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		if strings.Contains(m[1], "provider_installation {") {
			continue // the CLI configuration, which internal/installtest runs
		}
		out = append(out, m[1])
	}
	return out
}

// declareVariables declares the variables a snippet uses but does not
// declare, as the rest of a user's configuration would.
func declareVariables(hcl string) string {
	declared := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^variable "([a-z0-9_]+)"`).FindAllStringSubmatch(hcl, -1) {
		declared[m[1]] = true
	}
	var out strings.Builder
	for _, m := range regexp.MustCompile(`\bvar\.([a-z0-9_]+)`).FindAllStringSubmatch(hcl, -1) {
		if !declared[m[1]] {
			declared[m[1]] = true
			fmt.Fprintf(&out, "variable %q {\n  default = null\n}\n", m[1])
		}
	}
	return out.String()
}

func TestReadmeQuickStart(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	blocks := readmeBlocks(t)
	if len(blocks) != 4 || !strings.Contains(blocks[0], `resource "cks_cluster" "prod"`) {
		t.Fatalf("README.md has %d hcl blocks; the test knows the quick start and three provider blocks", len(blocks))
	}
	// The cluster first, then the drift check, which pins its host key.
	quickStart := blocks[0] + declareVariables(blocks[0])
	gate := regexp.MustCompile(`(?s)\ndata "cks_cluster_drift" "prod" \{.*?\n\}\n`)
	if !gate.MatchString(quickStart) {
		t.Fatal("the quick start has no drift check")
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(gate.ReplaceAllString(quickStart, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	// The quick start reads ~/.ssh/ops and ./known_hosts.
	key, err := os.ReadFile(env.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(r.home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.home, ".ssh", "ops"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	vars := append(simVars(env), "TF_VAR_ci=false")
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	r.terraform(work, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	if err := os.WriteFile(filepath.Join(work, "known_hosts"), []byte(knownHostsLine(t, env, "prod")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(quickStart), 0o600); err != nil {
		t.Fatal(err)
	}
	applied := r.terraform(work, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	if !strings.Contains(applied, "data.cks_cluster_drift.prod: Read complete") {
		t.Fatalf("the quick start's drift check did not run:\n%s", applied)
	}
	r.terraform(work, append(simVars(env), "TF_VAR_ci=true"), "plan", "-refresh-only", "-input=false", "-no-color")
	r.terraform(work, vars, "destroy", "-auto-approve", "-input=false", "-no-color")
	env.expectNothingLeftNow(t)
}

// The README's provider blocks and the provider example, each with a
// look-up that makes it call the API: the simulator's URL for the
// examples', a cmk configuration naming the simulator for the profile, the
// simulator's TLS certificate authority for the examples' file.
func TestReadmeProviderBlocks(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	tlsEnv := &simEnv{simtest.Start(t, simtest.WithTLS())}
	r := newExampleRunner(t)
	blocks := readmeBlocks(t)[1:]
	providerExample, err := os.ReadFile(filepath.Join("..", "..", "examples", "provider", "provider.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(r.home, ".cmk"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmk := fmt.Sprintf("[core]\nprofile = lab\n\n[production]\nurl = %s\napikey = %s\nsecretkey = %s\n",
		env.Info.APIURL, env.Info.APIKey, env.Info.SecretKey)
	if err := os.WriteFile(filepath.Join(r.home, ".cmk", "config"), []byte(cmk), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := []string{"TF_VAR_cloudstack_api_key=" + env.Info.APIKey, "TF_VAR_cloudstack_secret_key=" + env.Info.SecretKey}
	tls := []string{"CLOUDSTACK_API_URL=" + tlsEnv.Info.APIURL, "CLOUDSTACK_API_KEY=" + tlsEnv.Info.APIKey,
		"CLOUDSTACK_SECRET_KEY=" + tlsEnv.Info.SecretKey}
	for i, c := range []struct {
		hcl, from, to string
		vars          []string
	}{
		{requiredProviders + blocks[0], "https://cloud.example.com/client/api", env.Info.APIURL, plain},
		{requiredProviders + blocks[1], "", "", nil}, // the cmk profile names the simulator
		{requiredProviders + blocks[2], "/etc/ssl/private-ca.pem", tlsEnv.CAFile, tls},
		{string(providerExample), "https://cloud.example.com/client/api", env.Info.APIURL, plain},
	} {
		hcl := c.hcl
		if c.from != "" {
			if !strings.Contains(hcl, c.from) {
				t.Fatalf("configuration %d no longer has %s; the test no longer matches it:\n%s", i+1, c.from, hcl)
			}
			hcl = strings.ReplaceAll(hcl, c.from, c.to)
		}
		hcl += declareVariables(hcl) + "data \"cks_zone\" \"probe\" {\n  name = \"sim-zone-1\"\n}\n"
		work := t.TempDir()
		if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(hcl), 0o600); err != nil {
			t.Fatal(err)
		}
		r.terraform(work, nil, "init", "-input=false", "-no-color")
		out := r.terraform(work, c.vars, "apply", "-auto-approve", "-input=false", "-no-color")
		if !strings.Contains(out, "data.cks_zone.probe: Read complete") {
			t.Fatalf("configuration %d did not reach the API:\n%s", i+1, out)
		}
	}
}

// The `make demo` configuration, through its steps: create, scale up with
// the drift check on, the drift the demo injects seen by a refresh-only
// plan, destroy.
func TestDemoConfiguration(t *testing.T) {
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
	cluster := liveClusters(t, env)[0]
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
