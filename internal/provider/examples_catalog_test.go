package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// The examples of cks_kubernetes_version and cks_cni_configuration, applied
// as users apply them: each converges (the next plan is empty) and
// destroys cleanly.
func TestExamplesCatalogResources(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	creds := []string{"CLOUDSTACK_API_URL=" + env.Info.APIURL, "CLOUDSTACK_API_KEY=" + env.Info.APIKey,
		"CLOUDSTACK_SECRET_KEY=" + env.Info.SecretKey}
	examples := filepath.Join("..", "..", "examples", "resources")
	for name, vars := range map[string][]string{
		"cks_kubernetes_version": {"TF_VAR_zone=sim-zone-1", "TF_VAR_iso_url=" + newISOURL},
		"cks_cni_configuration": {"TF_VAR_zone_id=" + env.Info.ZoneID, "TF_VAR_kubernetes_version_id=" + env.VersionID("1.33.13"),
			"TF_VAR_service_offering_id=" + env.Info.ServiceOfferingID, "TF_VAR_keypair=" + env.Info.Keypair},
	} {
		vars = append(vars, creds...)
		// The import examples name objects this simulator does not have;
		// TestExamplesInitAndValidate validates them.
		work := r.copyExample(filepath.Join(examples, name), "import-by-string-id.tf", "import-by-identity.tf")
		r.terraform(work, nil, "init", "-input=false", "-no-color")
		applied := r.terraform(work, vars, "apply", "-auto-approve", "-input=false", "-no-color")
		if !strings.Contains(applied, "Apply complete!") {
			t.Fatalf("%s: apply:\n%s", name, applied)
		}
		r.terraform(work, vars, "plan", "-detailed-exitcode", "-input=false", "-no-color")
		r.terraform(work, vars, "destroy", "-auto-approve", "-input=false", "-no-color")
	}
	env.expectNothingLeftNow(t)
	versions, err := env.API.ListKubernetesSupportedVersions(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		if v.Name == "v1.34.2-sim-zone-1" { // the example's; the seeded 1.34.2 is "v1.34.2"
			t.Fatalf("the example's version %s is still registered", v.ID)
		}
	}
}

// The list resource example answers terraform query with the clusters it
// selects (Terraform 1.14+).
func TestExamplesListResource(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	skipBelowCLI(t, "1.14.0")
	env := newSimEnv(t)
	r := newExampleRunner(t)
	project := cloudstack.Ownership{ProjectID: env.Info.ProjectID}
	teamA := env.NewCluster(cloudstack.CreateClusterParams{Name: "team-a", Ownership: project})
	stopped := env.NewCluster(cloudstack.CreateClusterParams{Name: "team-b", Ownership: project})
	if err := env.Sim.SetClusterState(stopped.ID, "Stopped"); err != nil {
		t.Fatal(err)
	}
	env.NewCluster(cloudstack.CreateClusterParams{Name: "batch", Ownership: project})
	env.NewCluster(cloudstack.CreateClusterParams{Name: "team-c"})

	dir := filepath.Join("..", "..", "examples", "list-resources", "cks_cluster")
	work := r.copyGuideExample(dir)
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(requiredProviders+`
provider "cks" {}

variable "project_id" {
  type = string
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := []string{"CLOUDSTACK_API_URL=" + env.Info.APIURL, "CLOUDSTACK_API_KEY=" + env.Info.APIKey,
		"CLOUDSTACK_SECRET_KEY=" + env.Info.SecretKey, "TF_VAR_project_id=" + env.Info.ProjectID}
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	out := r.terraform(work, vars, "query", "-json", "-no-color")
	var found []string
	for _, line := range strings.Split(out, "\n") {
		var msg struct {
			Type  string `json:"type"`
			Found struct {
				Identity map[string]string `json:"identity"`
				Object   map[string]any    `json:"resource_object"`
			} `json:"list_resource_found"`
		}
		if json.Unmarshal([]byte(line), &msg) != nil || msg.Type != "list_resource_found" {
			continue
		}
		found = append(found, msg.Found.Identity["id"])
		if msg.Found.Object["name"] != "team-a" {
			t.Errorf("the result's resource is %v", msg.Found.Object)
		}
	}
	if len(found) != 1 || found[0] != teamA.ID {
		t.Fatalf("terraform query found %v, want only team-a (%s):\n%s", found, teamA.ID, out)
	}
}

// copyGuideExample copies an example directory's files (configuration, query
// files, scripts) to a fresh directory.
func (r *exampleRunner) copyGuideExample(dir string) string {
	r.t.Helper()
	work := r.t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, e.Name()), data, info.Mode().Perm()); err != nil {
			r.t.Fatal(err)
		}
	}
	return work
}
