package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// The examples are what users copy first, so they are tested as users run
// them: the real Terraform CLI with the provider binary this package builds,
// installed from a local filesystem mirror (so `terraform init` works
// offline), `terraform init` and `terraform validate` on every example
// directory, and `terraform apply` of the resource and data source examples
// against the simulator.

// exampleProviderVersion is the version the test mirror serves.
const exampleProviderVersion = "0.1.0"

// mirrorHosts are the registry hosts the test mirror serves the provider
// under: `cloudstack-cks/cks` means the first to Terraform and the second to
// OpenTofu (make test-opentofu).
var mirrorHosts = []string{"registry.terraform.io", "registry.opentofu.org"}

// requiredProviders is added to example snippets that have no terraform
// block, as a user's configuration would have one.
const requiredProviders = `terraform {
  required_providers {
    cks = {
      source = "cloudstack-cks/cks"
    }
  }
}
`

// otherProviders matches provider blocks of providers that cannot be
// installed offline (the registry is out of reach in tests).
var otherProviders = regexp.MustCompile(`(?m)^provider "([a-z0-9_]+)"`)

type exampleRunner struct {
	t      *testing.T
	env    []string
	mirror string
	home   string // HOME of the CLI and the providers
}

func newExampleRunner(t *testing.T) *exampleRunner {
	t.Helper()
	mirror := t.TempDir()
	platform := runtime.GOOS + "_" + runtime.GOARCH
	binary := func(host string) string {
		return filepath.Join(mirror, host, "cloudstack-cks", "cks", exampleProviderVersion, platform,
			"terraform-provider-cks_v"+exampleProviderVersion)
	}
	built := builtProvider(t)
	var include []string
	for _, host := range mirrorHosts {
		include = append(include, fmt.Sprintf("%q", host+"/cloudstack-cks/cks"), fmt.Sprintf("%q", host+"/hashicorp/kubernetes"))
		if err := os.MkdirAll(filepath.Dir(binary(host)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := linkOrCopy(built, binary(host)); err != nil {
			t.Fatal(err)
		}
	}
	rc := filepath.Join(t.TempDir(), "terraformrc")
	installation := fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path    = %q\n    include = [%s]\n  }\n}\n",
		mirror, strings.Join(include, ", "))
	if err := os.WriteFile(rc, []byte(installation), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := []string{"TF_CLI_CONFIG_FILE=" + rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "HOME=" + home}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_") && !strings.HasPrefix(kv, "CLOUDSTACK_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return &exampleRunner{t: t, env: env, mirror: mirror, home: home}
}

// addKubernetesProvider puts the hashicorp/kubernetes build into the
// mirror, for both CLIs.
func (r *exampleRunner) addKubernetesProvider() {
	r.t.Helper()
	binary := kubernetesProvider(r.t)
	platform := runtime.GOOS + "_" + runtime.GOARCH
	for _, host := range mirrorHosts {
		dir := filepath.Join(r.mirror, host, "hashicorp", "kubernetes", kubernetesProviderVersion, platform)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			r.t.Fatal(err)
		}
		data, err := os.ReadFile(binary)
		if err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "terraform-provider-kubernetes_v"+kubernetesProviderVersion), data, 0o755); err != nil {
			r.t.Fatal(err)
		}
	}
}

// copyExample copies an example directory's .tf files to a fresh directory,
// so that Terraform's working files never land in the repository. Files
// named in skip are left out.
func (r *exampleRunner) copyExample(dir string, skip ...string) string {
	r.t.Helper()
	work := r.t.TempDir()
	files, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil || len(files) == 0 {
		r.t.Fatalf("no .tf files in %s: %v", dir, err)
	}
	hasTerraformBlock := false
	for _, f := range files {
		if slices.Contains(skip, filepath.Base(f)) {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, filepath.Base(f)), data, 0o600); err != nil {
			r.t.Fatal(err)
		}
		hasTerraformBlock = hasTerraformBlock || strings.Contains(string(data), "required_providers")
	}
	if !hasTerraformBlock {
		if err := os.WriteFile(filepath.Join(work, "zz_required_providers.tf"), []byte(requiredProviders), 0o600); err != nil {
			r.t.Fatal(err)
		}
	}
	return work
}

func (r *exampleRunner) terraform(dir string, extraEnv []string, args ...string) string {
	r.t.Helper()
	out, err := r.run(dir, extraEnv, args...)
	if err != nil {
		r.t.Fatalf("terraform %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return out
}

// terraformFails runs a command that must fail and returns its output.
func (r *exampleRunner) terraformFails(dir string, extraEnv []string, args ...string) string {
	r.t.Helper()
	out, err := r.run(dir, extraEnv, args...)
	if err == nil {
		r.t.Fatalf("terraform %s in %s succeeded; it should fail:\n%s", strings.Join(args, " "), dir, out)
	}
	return out
}

func (r *exampleRunner) run(dir string, extraEnv []string, args ...string) (string, error) {
	cmd := exec.Command(terraformPath(), append([]string{"-chdir=" + dir}, args...)...)
	cmd.Env = append(append([]string{}, r.env...), extraEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func terraformPath() string {
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	return "terraform"
}

func exampleDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(filepath.Join("..", "..", "examples"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "guides" {
			// Fragments of one another (a gate next to a cluster, a
			// migration's before and after): examples_guides_test.go applies
			// them in their order.
			return filepath.SkipDir
		}
		if d.IsDir() {
			if tf, _ := filepath.Glob(filepath.Join(path, "*.tf")); len(tf) > 0 {
				dirs = append(dirs, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	return dirs
}

func TestExamplesInitAndValidate(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	r := newExampleRunner(t)
	dirs := exampleDirs(t)
	if len(dirs) < 8 {
		t.Fatalf("found only %d example directories: %v", len(dirs), dirs)
	}
	validated := 0
	for _, dir := range dirs {
		// A resource has one import block: the import by identity is
		// validated on its own, below.
		work := r.copyExample(dir, "import-by-identity.tf")
		if others := foreignProviders(t, work); len(others) > 0 {
			// The kubeconfig example configures kubernetes and helm for the
			// resource example's cluster: TestExamplesApplyAgainstSimulator
			// applies the two together.
			t.Logf("%s configures %v for another example's cluster: applied with it", dir, others)
			r.terraform(work, nil, "fmt", "-check", "-diff")
			continue
		}
		r.terraform(work, nil, "init", "-input=false", "-backend=false", "-no-color")
		r.terraform(work, nil, "validate", "-no-color")
		validated++
		r.validateImportByIdentity(dir)
	}
	if validated < len(dirs)-1 {
		t.Fatalf("validated %d of %d example directories", validated, len(dirs))
	}
}

// validateImportByIdentity validates a resource example's import by
// identity with its resource, when the CLI has import blocks by identity
// (Terraform 1.12; OpenTofu has none).
func (r *exampleRunner) validateImportByIdentity(dir string) {
	r.t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "import-by-identity.tf")); err != nil || !cliAtLeast(r.t, "1.12.0") {
		return
	}
	work := r.copyExample(dir, "import-by-string-id.tf")
	r.terraform(work, nil, "init", "-input=false", "-backend=false", "-no-color")
	r.terraform(work, nil, "validate", "-no-color")
}

func foreignProviders(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.tf"))
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range otherProviders.FindAllStringSubmatch(string(data), -1) {
			if m[1] != "cks" {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// kubeconfigExampleProviders is the terraform block of the resource
// example applied with the kubeconfig example: kubernetes at the version the
// test builds, helm served by the stand-in (helm_standin_test.go).
const kubeconfigExampleProviders = `terraform {
  required_providers {
    cks = {
      source = "cloudstack-cks/cks"
    }
    kubernetes = {
      source  = "hashicorp/kubernetes"
      version = "` + kubernetesProviderVersion + `"
    }
    helm = {
      source = "hashicorp/helm"
    }
  }
}
`

// kubeconfigExampleProbe is what the helm stand-in checks through the
// example's helm provider configuration; it exists in the test only.
const kubeconfigExampleProbe = `data "helm_standin_cluster" "probe" {
  namespace  = "kube-system"
  depends_on = [cks_cluster.example]
}

output "helm_probe" {
  value = "${data.helm_standin_cluster.probe.kubernetes_version} ${data.helm_standin_cluster.probe.namespace_phase}"
}
`

// TestExamplesApplyAgainstSimulator applies the resource example with the
// kubeconfig example, whose kubernetes and helm providers reach the new
// cluster's Kubernetes API with its client certificate; then each data
// source example against what it created; then shows that the example's
// deletion_protection stops a destroy, lifts it and destroys everything.
func TestExamplesApplyAgainstSimulator(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	r.addKubernetesProvider()
	// v1 of the kubernetes provider reads ~/.kube/config unless
	// load_config_file (gone since v2) is false, and without such a file
	// drops the explicit settings too; its environment variable turns it off
	// while the example stays as v2 and v3 read it.
	r.env = append(r.env, reattached(t, helmStandInServers()), "KUBE_LOAD_CONFIG_FILE=false")
	creds := []string{
		"CLOUDSTACK_API_URL=" + env.Info.APIURL,
		"CLOUDSTACK_API_KEY=" + env.Info.APIKey,
		"CLOUDSTACK_SECRET_KEY=" + env.Info.SecretKey,
	}
	examples := filepath.Join("..", "..", "examples")
	// A project's network for the cks_network example.
	team := env.NewCluster(cloudstack.CreateClusterParams{Name: "team", Ownership: cloudstack.Ownership{ProjectID: env.Info.ProjectID}})

	// The import example names a cluster that does not exist here; it is
	// validated with the others.
	resources := r.copyExample(filepath.Join(examples, "resources", "cks_cluster"), "import-by-string-id.tf", "import-by-identity.tf")
	kubeconfig, err := os.ReadFile(filepath.Join(examples, "ephemeral-resources", "cks_cluster_kubeconfig", "ephemeral-resource.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"ephemeral-resource.tf": string(kubeconfig),
		"zz_required_providers.tf": kubeconfigExampleProviders, "zz_probe.tf": kubeconfigExampleProbe} {
		if err := os.WriteFile(filepath.Join(resources, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	clusterVars := append(append([]string{}, creds...),
		"TF_VAR_zone=sim-zone-1",
		"TF_VAR_service_offering=cks-medium",
		"TF_VAR_network=sim-isolated-network",
		"TF_VAR_keypair="+env.Info.Keypair,
	)
	r.terraform(resources, nil, "init", "-input=false", "-no-color")
	r.terraform(resources, clusterVars, "apply", "-auto-approve", "-input=false", "-no-color")
	// A second plan must be empty: the example converges.
	r.terraform(resources, clusterVars, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	outputs := r.terraform(resources, clusterVars, "output", "-json")
	var out struct {
		Namespaces struct{ Value []string } `json:"namespaces"`
		HelmProbe  struct{ Value string }   `json:"helm_probe"`
	}
	if err := json.Unmarshal([]byte(outputs), &out); err != nil {
		t.Fatalf("outputs %s: %v", outputs, err)
	}
	if !slices.Equal(out.Namespaces.Value, []string{"default", "kube-node-lease", "kube-public", "kube-system"}) {
		t.Fatalf("the kubernetes provider listed namespaces %v", out.Namespaces.Value)
	}
	if out.HelmProbe.Value != "v1.33.13 Active" {
		t.Fatalf("the helm provider configuration reached %q", out.HelmProbe.Value)
	}

	clusters := map[string]liveCluster{}
	for _, c := range env.liveClusters() {
		clusters[c.Name] = c
	}
	example, ok := clusters["example"]
	if !ok || len(clusters) != 3 {
		t.Fatalf("the resource example should create clusters example and autoscaled, the simulator has %v", clusters)
	}
	r.applyDataSourceExamples(env, creds, example, clusters, team.Name+"-")

	protected := r.terraformFails(resources, clusterVars, "plan", "-destroy", "-input=false", "-no-color")
	if !strings.Contains(protected, "Cluster Is Protected From Deletion") || !strings.Contains(protected, "deletion_protection") {
		t.Fatalf("a destroy plan of the protected example cluster:\n%s", protected)
	}
	unprotected := append(clusterVars, "TF_VAR_deletion_protection=false")
	r.terraform(resources, unprotected, "apply", "-auto-approve", "-input=false", "-no-color")
	r.terraform(resources, unprotected, "destroy", "-auto-approve", "-input=false", "-no-color")
	if left := env.liveClusters(); len(left) != 1 || left[0].Name != "team" {
		t.Fatalf("clusters left after destroy: %v", left)
	}
}

// applyDataSourceExamples applies each data source example against the
// clusters the resource example created.
func (r *exampleRunner) applyDataSourceExamples(env *simEnv, creds []string, example liveCluster, clusters map[string]liveCluster, projectNetworkPrefix string) {
	t := r.t
	examples := filepath.Join("..", "..", "examples")
	keyFile := env.KeyFile
	var knownHosts strings.Builder
	for _, c := range clusters {
		fmt.Fprintf(&knownHosts, "[%s]:2222 %s", c.IP, ssh.MarshalAuthorizedKey(env.Sim.HostKey(c.ID)))
	}
	knownHostsFile := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(knownHostsFile, []byte(knownHosts.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	dataSources := map[string][]string{
		"cks_kubernetes_version":  {"TF_VAR_zone_id=" + env.Info.ZoneID},
		"cks_kubernetes_versions": {"TF_VAR_cluster_name=example"},
		"cks_zone":                {"TF_VAR_zone=sim-zone-1"},
		"cks_service_offering":    {"TF_VAR_zone=sim-zone-1", "TF_VAR_worker_offering=cks-medium", "TF_VAR_etcd_offering_prefix=cks-lar"},
		"cks_network": {"TF_VAR_zone=sim-zone-1", "TF_VAR_network=sim-isolated-network", "TF_VAR_project=cks-project",
			"TF_VAR_project_network_prefix=" + projectNetworkPrefix},
		"cks_project": {"TF_VAR_project=cks-project"},
		"cks_cluster": {"TF_VAR_cluster_name=example"},
		"cks_cluster_drift": {
			"TF_VAR_cluster_id=" + example.ID,
			"TF_VAR_private_key_file=" + keyFile,
			"TF_VAR_control_node_host_key=" + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(env.Sim.HostKey(example.ID)))),
		},
		"cks_clusters_drift": {
			"TF_VAR_name_regex=^(example|autoscaled)$",
			"TF_VAR_private_key_file=" + keyFile,
			"TF_VAR_known_hosts_file=" + knownHostsFile,
		},
	}
	dirs, err := filepath.Glob(filepath.Join(examples, "data-sources", "*"))
	if err != nil || len(dirs) != len(dataSources) {
		t.Fatalf("data source examples %v, the test knows %d", dirs, len(dataSources))
	}
	results := map[string]string{}
	for name, vars := range dataSources {
		work := r.copyExample(filepath.Join(examples, "data-sources", name))
		r.terraform(work, nil, "init", "-input=false", "-no-color")
		applied := r.terraform(work, append(append([]string{}, creds...), vars...), "apply", "-auto-approve", "-input=false", "-no-color")
		out := r.terraform(work, append(append([]string{}, creds...), vars...), "output", "-json")
		if !json.Valid([]byte(out)) || strings.TrimSpace(out) == "{}" {
			t.Fatalf("example %s produced no outputs: %s", name, out)
		}
		results[name] = applied
	}
	if !strings.Contains(results["cks_cluster_drift"], "in_sync = true") {
		t.Fatalf("the drift example should find the example cluster in sync:\n%s", results["cks_cluster_drift"])
	}
	if !strings.Contains(results["cks_kubernetes_versions"], `"1.34.4 (v1.34.4)",`) ||
		!strings.Contains(results["cks_kubernetes_versions"], `upgrade_to = "`+env.VersionID("1.34.4")+`"`) {
		t.Fatalf("the versions example should offer 1.34.4 and 1.34.2 to a 1.33.13 cluster:\n%s", results["cks_kubernetes_versions"])
	}
}
