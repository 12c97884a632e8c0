package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"k8s.io/client-go/tools/clientcmd"
)

// The secrets suite: with every log at TRACE, an apply, a plan
// and drift reads (over SSH with the private key, and through the Kubernetes
// API with the kubeconfig), plus failing steps, must never show the secret
// key, the SSH private key, the kubeconfig or its client key in the logs, the
// state, the plans or the error messages. The one exception is the drift
// data sources' ssh.private_key input, which Terraform keeps in state and
// which must be marked sensitive there; with ssh.private_key_file or the
// SSH agent instead, not even that (cluster_drift_keys_test.go).

// relSecret is a value that must not leak, and what to call it.
type relSecret struct{ name, value string }

// relSecrets collects the secrets of a simulator with one cluster. The
// private key is checked line by line, so that a key logged with escaped
// newlines is found too; the kubeconfig by its client key (kubeadm's
// admin.conf authenticates with a client certificate), the part that is
// secret.
func relSecrets(t *testing.T, env *simEnv, kubeconfig string) []relSecret {
	t.Helper()
	secrets := []relSecret{{"the secret key", env.Info.SecretKey}}
	for _, line := range strings.Split(string(env.Sim.PrivateKeyPEM()), "\n") {
		if len(line) >= 32 && !strings.HasPrefix(line, "-----") {
			secrets = append(secrets, relSecret{"a line of the SSH private key", line})
		}
	}
	cfg, err := clientcmd.Load([]byte(kubeconfig))
	if err != nil {
		t.Fatal(err)
	}
	for name, user := range cfg.AuthInfos {
		if len(user.ClientKeyData) == 0 {
			t.Fatalf("the kubeconfig's user %s has no client key", name)
		}
		for _, line := range strings.Split(string(user.ClientKeyData), "\n") {
			if len(line) >= 32 && !strings.HasPrefix(line, "-----") {
				secrets = append(secrets, relSecret{"a line of the kubeconfig's client key", line})
			}
		}
	}
	for _, line := range strings.Split(kubeconfig, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "client-key-data: "); ok {
			secrets = append(secrets, relSecret{"the kubeconfig (its client key data)", v})
		}
	}
	if len(secrets) < 4 {
		t.Fatalf("found only %d secrets to look for", len(secrets))
	}
	return secrets
}

// relLeaks names the secrets found in text.
func relLeaks(secrets []relSecret, text string) []string {
	var out []string
	for _, s := range secrets {
		if strings.Contains(text, s.value) {
			out = append(out, s.name)
		}
	}
	return out
}

// relWithoutPrivateKeys is a JSON document without the values of
// attributes named private_key (the drift data sources' sensitive input),
// after checking that each is marked sensitive where sensitive_values says
// so. Only objects that carry values are walked, so that every other place
// keeps the secret visible to the search.
func relWithoutPrivateKeys(doc any) any {
	switch v := doc.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if k == "private_key" {
				continue
			}
			out[k] = relWithoutPrivateKeys(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = relWithoutPrivateKeys(x)
		}
		return out
	default:
		return v
	}
}

// relSensitivePrivateKeys checks that every drift data source in the state
// marks ssh.private_key sensitive.
func relSensitivePrivateKeys(raw []byte) error {
	var st struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address         string         `json:"address"`
					Type            string         `json:"type"`
					Values          map[string]any `json:"values"`
					SensitiveValues map[string]any `json:"sensitive_values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return err
	}
	checked := 0
	for _, r := range st.Values.RootModule.Resources {
		ssh, _ := r.Values["ssh"].(map[string]any)
		if ssh == nil || ssh["private_key"] == nil {
			continue
		}
		sens, _ := r.SensitiveValues["ssh"].(map[string]any)
		if sens == nil || sens["private_key"] != true {
			return fmt.Errorf("%s holds ssh.private_key without marking it sensitive (sensitive_values: %v)", r.Address, r.SensitiveValues)
		}
		checked++
	}
	if checked == 0 {
		return fmt.Errorf("no drift data source with an ssh.private_key in state")
	}
	return nil
}

// relNoSecretsInState is a state check: no secret outside the sensitive
// private_key inputs, which must be marked sensitive.
type relNoSecretsInState struct{ secrets func() []relSecret }

func (c relNoSecretsInState) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	raw, err := json.Marshal(req.State)
	if err != nil {
		resp.Error = err
		return
	}
	if err := relSensitivePrivateKeys(raw); err != nil {
		resp.Error = err
		return
	}
	resp.Error = relSearchJSON("the state", raw, c.secrets())
}

// relNoSecretsInPlan is a plan check: the plan (which holds the prior state
// and the planned values) shows no secret outside the private_key inputs.
type relNoSecretsInPlan struct{ secrets func() []relSecret }

func (c relNoSecretsInPlan) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	raw, err := json.Marshal(req.Plan)
	if err != nil {
		resp.Error = err
		return
	}
	resp.Error = relSearchJSON("the plan", raw, c.secrets())
}

func relSearchJSON(what string, raw []byte, secrets []relSecret) error {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	cleaned, err := json.Marshal(relWithoutPrivateKeys(doc))
	if err != nil {
		return err
	}
	if leaks := relLeaks(secrets, string(cleaned)); len(leaks) > 0 {
		return fmt.Errorf("%s shows %s", what, strings.Join(leaks, ", "))
	}
	return nil
}

// relExpectedFailure lets a step fail with a known error while the test
// keeps the error's text: TestCase.ErrorCheck hands it over.
type relExpectedFailure struct {
	t       *testing.T
	pattern *regexp.Regexp
	seen    []string
}

// expect arms the next step's failure.
func (f *relExpectedFailure) expect(pattern string) func() {
	return func() {
		f.consumed()
		f.pattern = errorFragments(pattern)
	}
}

// consumed fails the test when the failure armed last did not happen.
func (f *relExpectedFailure) consumed() {
	if f.pattern != nil {
		f.t.Fatalf("the step expected to fail with %q succeeded", f.pattern)
	}
}

func (f *relExpectedFailure) check(err error) error {
	if f.pattern == nil || !f.pattern.MatchString(err.Error()) {
		return err
	}
	f.pattern = nil
	f.seen = append(f.seen, err.Error())
	return nil
}

// TestSecrets_neverLogged runs in its own process: it sets the TF_LOG
// variables, which the in-process provider and the Terraform CLI read.
func TestSecrets_neverLogged(t *testing.T) {
	// TF_ACC_LOG_PATH routes the Terraform CLI's log and the in-process
	// provider's tflog output (and the test framework's, which quotes each
	// human-readable plan) to the same file, at TRACE.
	logFile := filepath.Join(t.TempDir(), "terraform-and-provider.log")
	if !inOwnProcess(t, map[string]string{"TF_LOG": "TRACE", "TF_LOG_PATH": logFile, "TF_ACC_LOG_PATH": logFile}) {
		return
	}
	logFile = os.Getenv("TF_ACC_LOG_PATH")

	env := newSimEnv(t)
	// The keys come from the environment, as the documentation recommends:
	// Terraform itself copies literal provider arguments, sensitive or
	// not, into the JSON plan (configuration.provider_config), which is
	// beyond the provider's reach.
	t.Setenv(envAPIKey, env.Info.APIKey)
	t.Setenv(envSecretKey, env.Info.SecretKey)
	var secrets []relSecret
	secretsNow := func() []relSecret { return secrets }
	_, wrongHostKey := testSSHKeys(t)
	config := func(size int, hostKey string) string {
		hostCheck := "insecure_ignore_host_key = true"
		if hostKey != "" {
			hostCheck = fmt.Sprintf("host_key = %q", hostKey)
		}
		provider := fmt.Sprintf("\nprovider \"cks\" {\n  api_url = %q\n}\n", env.Info.APIURL)
		return env.cluster("secrets").size(size).through(provider).with(fmt.Sprintf(`
data "cks_cluster_drift" "ssh" {
  cluster_id = cks_cluster.test.id
  ssh = {
    private_key = file(%q)
    %s
  }
}

data "cks_cluster_drift" "kube" {
  cluster_id  = cks_cluster.test.id
  node_source = "kubeconfig"
}

data "cks_clusters_drift" "all" {
  node_source = "kubeconfig"
}

ephemeral "cks_cluster_kubeconfig" "this" {
  cluster_id = cks_cluster.test.id
}
`, env.KeyFile, hostCheck)).String()
	}
	checks := func() ([]statecheck.StateCheck, resource.ConfigPlanChecks) {
		plan := []plancheck.PlanCheck{relNoSecretsInPlan{secretsNow}}
		return []statecheck.StateCheck{relNoSecretsInState{secretsNow}},
			resource.ConfigPlanChecks{PostApplyPreRefresh: plan, PostApplyPostRefresh: plan}
	}
	stateChecks, planChecks := checks()
	failures := &relExpectedFailure{t: t}

	accTest(t, resource.TestCase{
		ErrorCheck:   failures.check,
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				// An apply that creates the cluster and reads drift both ways.
				Config:            config(1, ""),
				ConfigStateChecks: stateChecks,
				Check: func(s *terraform.State) error {
					id, err := clusterID(s)
					if err != nil {
						return err
					}
					kubeconfig, err := env.API.GetKubernetesClusterConfig(context.Background(), id)
					if err != nil {
						return err
					}
					secrets = relSecrets(t, env, kubeconfig)
					return nil
				},
			},
			{
				// A plan, which reads every data source again.
				Config: config(1, ""), PlanOnly: true, ConfigPlanChecks: planChecks,
			},
			{
				// Errors: a host key that does not match,
				PreConfig: failures.expect("SSH Host Key Refused"),
				Config:    config(1, wrongHostKey),
			},
			{
				// a CloudStack failure during the drift reads,
				PreConfig: func() {
					failures.expect("Unable to Check Cluster Drift")()
					env.Sim.FailNextCalls("listVirtualMachines", 1000, 530, "Injected failure")
				},
				Config: config(1, ""),
			},
			{
				// and a failed scale job.
				PreConfig: func() {
					failures.expect("Cluster Operation Failed")()
					env.Sim.ClearFaults()
					if err := env.Sim.FailJobStep("scale-up", "vms", 1, ""); err != nil {
						t.Fatal(err)
					}
				},
				Config: config(2, ""),
			},
			{
				// The failed job left the cluster in Alert; CloudStack's
				// state scanner returns it to Running before this apply.
				PreConfig: func() {
					failures.consumed()
					env.Sim.RunScanner()
				},
				Config:            config(2, ""),
				ConfigStateChecks: stateChecks,
				ConfigPlanChecks:  planChecks,
			},
		},
	})

	if len(failures.seen) != 3 {
		t.Fatalf("saw %d of the 3 expected errors", len(failures.seen))
	}
	for _, msg := range failures.seen {
		if leaks := relLeaks(secrets, msg); len(leaks) > 0 {
			t.Errorf("an error message shows %s:\n%s", strings.Join(leaks, ", "), msg)
		}
	}
	relExpectCleanLog(t, logFile, secrets)
}

// relExpectCleanLog checks that the log holds what each source writes at
// TRACE (so that it was captured at all) and no secret.
func relExpectCleanLog(t *testing.T, logFile string, secrets []relSecret) {
	t.Helper()
	raw, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatalf("the log was not written: %v", err)
	}
	log := string(raw)
	for source, markers := range map[string][]string{
		// The CLI is Terraform, or OpenTofu under make test-opentofu.
		"the CLI":                                   {"Terraform version:", "OpenTofu version:"},
		"the provider's CloudStack client":          {"CloudStack API call succeeded"},
		"the provider's kubeconfig reads":           {"getKubernetesClusterConfig"},
		"the provider's drift data sources":         {"drift check done"},
		"the test framework's human-readable plans": {"Created plan with changes"},
	} {
		if !slices.ContainsFunc(markers, func(m string) bool { return strings.Contains(log, m) }) {
			t.Errorf("the log has no line from %s (%q): the capture is incomplete", source, markers)
		}
	}
	if leaks := relLeaks(secrets, log); len(leaks) > 0 {
		for _, s := range secrets {
			if i := strings.Index(log, s.value); i >= 0 {
				start := max(0, strings.LastIndex(log[:i], "\n"))
				t.Errorf("the log shows %s:\n%s", s.name, log[start:min(len(log), i+200)])
			}
		}
	}
	t.Logf("searched %d bytes of TRACE log for %d secrets", len(raw), len(secrets))
}
