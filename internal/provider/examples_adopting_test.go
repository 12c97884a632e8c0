package provider

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// The adopting-clusters guide, as users run it: terraform query writes a
// resource and an import block for every cluster of the account, the plan
// imports them (with no change but the etcd SSH layout of a cluster with
// etcd nodes), and the apply leaves nothing to do; then the
// scheduled query finds the cluster of another account, which no state
// manages, and fails.
func TestGuideAdoptingClusters(t *testing.T) {
	t.Parallel()
	skipBelowCLI(t, "1.14.0")
	r := newExampleRunner(t)
	env := newSimEnv(t)
	first := env.NewCluster(cloudstack.CreateClusterParams{Name: "team-api"})
	second := env.NewCluster(cloudstack.CreateClusterParams{Name: "team-batch", EtcdNodes: 1})
	other := env.NewCluster(cloudstack.CreateClusterParams{Name: "elsewhere",
		Ownership: cloudstack.Ownership{Account: env.Info.TenantAccount, DomainID: env.Info.DomainID}})
	creds := []string{"CLOUDSTACK_API_URL=" + env.Info.APIURL, "CLOUDSTACK_API_KEY=" + env.Info.APIKey,
		"CLOUDSTACK_SECRET_KEY=" + env.Info.SecretKey}
	const doc = "docs/guides/adopting-clusters.md"
	run := newDocRun(t, doc)
	adopt := t.TempDir()
	writeFile(t, adopt, "main.tf", run.block(`description = "The account whose clusters this workspace adopts."`))
	writeFile(t, adopt, "clusters.tfquery.hcl", run.block(`list "cks_cluster" "team"`))
	vars := append(append([]string{}, creds...), "TF_VAR_account="+env.Info.Account, "TF_VAR_domain_id="+env.Info.DomainID)
	r.terraform(adopt, nil, "init", "-input=false", "-no-color")
	r.terraform(adopt, vars, "query", "-generate-config-out=clusters.tf", "-no-color")
	generated, err := os.ReadFile(filepath.Join(adopt, "clusters.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{first.ID, second.ID} {
		if !strings.Contains(string(generated), id) {
			t.Fatalf("the generated configuration has no import of %s:\n%s", id, generated)
		}
	}
	if strings.Contains(string(generated), other.ID) {
		t.Fatalf("the generated configuration adopts another account's cluster:\n%s", generated)
	}
	// The cluster with an etcd node still has CKS's own etcd SSH rules: the
	// plan imports it and replaces them with the provider's etcd SSH range,
	// as the guide says; the other is imported with no change.
	plan := r.terraform(adopt, vars, "plan", "-input=false", "-no-color")
	if !strings.Contains(plan, "Plan: 2 to import, 0 to add, 1 to change, 0 to destroy.") ||
		!strings.Contains(plan, "Cluster SSH Rules Will Change") || strings.Count(plan, "ssh_rules_in_sync          = false -> true") != 1 {
		t.Fatalf("the plan of the generated configuration:\n%s", plan)
	}
	r.terraform(adopt, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	r.terraform(adopt, vars, "plan", "-detailed-exitcode", "-input=false", "-no-color")

	scheduled := t.TempDir()
	writeFile(t, scheduled, "main.tf", run.block("Credentials that may list every account's clusters"))
	writeFile(t, scheduled, "clusters.tfquery.hcl", run.block(`list "cks_cluster" "all"`))
	script := filepath.Join(scheduled, "find-unmanaged.sh")
	if err := os.WriteFile(script, []byte(fencedBlock(t, doc, "shell", "Clusters that no Terraform state manages")), 0o700); err != nil {
		t.Fatal(err)
	}
	r.terraform(scheduled, nil, "init", "-input=false", "-no-color")
	cmd := exec.Command("./find-unmanaged.sh", adopt)
	cmd.Dir = scheduled
	cmd.Env = append(append(append([]string{}, r.env...), creds...), "TERRAFORM="+terraformPath())
	out, err := cmd.CombinedOutput()
	if exitErr, ok := err.(*exec.ExitError); !ok || exitErr.ExitCode() != 1 {
		t.Fatalf("find-unmanaged.sh should exit 1 (err %v):\n%s", err, out)
	}
	if !strings.Contains(string(out), other.ID+"  elsewhere (") || strings.Contains(string(out), first.ID) {
		t.Fatalf("find-unmanaged.sh found:\n%s", out)
	}
}
