package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestClusterResource_badInput checks that each invalid configuration is
// rejected at plan time, naming the attribute (Terraform prints its line)
// and the rule, before the provider calls the API: the API URL points at a
// server that counts requests.
func TestClusterResource_badInput(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		http.Error(w, "no API call is expected", http.StatusInternalServerError)
	}))
	t.Cleanup(api.Close)

	const valid = `
  kubernetes_version_id = "v"
  service_offering_id   = "o"
`
	cases := []struct {
		name string
		body string
		// want are fragments of the error, in order: the summary, the
		// attribute's line or name, and the rule broken.
		want []string
	}{
		{"size 0", valid + "size = 0", []string{"Invalid Attribute Value", "size                  = 0", "size value must be at least 1, got: 0"}},
		{"control_nodes 0", valid + "size = 1\ncontrol_nodes = 0", []string{"Invalid Attribute Value", "control_nodes = 0", "control_nodes value must be at least 1, got: 0"}},
		{"etcd_nodes below 0", valid + "size = 1\netcd_nodes = -1", []string{"Invalid Attribute Value", "etcd_nodes = -1", "etcd_nodes value must be at least 0, got: -1"}},
		{"root disk below 8", valid + "size = 1\nnode_root_disk_size = 7", []string{"Invalid Attribute Value", "node_root_disk_size = 7", "node_root_disk_size value must be at least 8, got: 7"}},
		{"state Paused", valid + "size = 1\nstate = \"Paused\"", []string{"Invalid Attribute Value Match", `state = "Paused"`, `state value must be one of: ["Running" "Stopped"], got: "Paused"`}},
		{"autoscaling min_size 0", valid + "autoscaling = {\n enabled = true\n min_size = 0\n max_size = 3\n}", []string{"Invalid Attribute Value", "autoscaling.min_size value must be at least 1, got: 0"}},
		{"autoscaling min above max", valid + "autoscaling = {\n enabled = true\n min_size = 3\n max_size = 2\n}", []string{"Invalid Autoscaling Range", "autoscaling.max_size must be greater than min_size, got max_size 2 and min_size 3"}},
		{"autoscaling min equals max", valid + "autoscaling = {\n enabled = true\n min_size = 2\n max_size = 2\n}", []string{"Invalid Autoscaling Range", "autoscaling.max_size must be greater than min_size, got max_size 2 and min_size 2"}},
		{"autoscaling with size", valid + "size = 2\nautoscaling = {\n enabled = true\n min_size = 1\n max_size = 3\n}", []string{"Size Conflicts With Autoscaling", "size = 2", "size must not be set while autoscaling is enabled"}},
		{"autoscaling without max_size", valid + "autoscaling = {\n enabled = true\n min_size = 1\n}", []string{"Missing Autoscaling Maximum", "autoscaling.max_size (greater than min_size) is required when autoscaling is enabled"}},
		{"unknown per-role offering key", valid + "size = 1\ngpu_offering_id = \"g\"", []string{"Unsupported argument", `gpu_offering_id = "g"`, `An argument named "gpu_offering_id" is not expected here`}},
		{"size missing", valid, []string{"Missing Cluster Size", "size (the number of worker nodes, at least 1) is required unless autoscaling is enabled"}},
		{"name empty", valid + "size = 1", []string{"Invalid Attribute Value Length", `name    = ""`, "name string length must be between 1 and 255, got: 0"}},
		{"name too long", valid + "size = 1", []string{"Invalid Attribute Value Length", "name string length must be between 1 and 255, got: 256"}},
		{"name blank", valid + "size = 1", []string{"Invalid Attribute Value", `name    = "   "`, "must not be blank"}},
		{"no offering", "  kubernetes_version_id = \"v\"\nsize = 1", []string{"Missing Compute Offering", "service_offering_id is required unless every node type has its own offering; missing: control_offering_id, worker_offering_id"}},
		{"etcd without offering", "  kubernetes_version_id = \"v\"\nsize = 1\netcd_nodes = 3\ncontrol_offering_id = \"c\"\nworker_offering_id = \"w\"", []string{"Missing Compute Offering", "missing: etcd_offering_id"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := "bad"
			switch tc.name {
			case "name empty":
				name = ""
			case "name too long":
				name = strings.Repeat("n", 256)
			case "name blank":
				name = "   "
			}
			config := fmt.Sprintf(`
provider "cks" {
  api_url    = %q
  api_key    = "k"
  secret_key = "s"
}

resource "cks_cluster" "test" {
  name    = %q
  zone_id = "z"
%s
}
`, api.URL, name, tc.body)
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      config,
					PlanOnly:    true,
					ExpectError: errorFragments(tc.want...),
				}},
			})
		})
	}
	t.Cleanup(func() {
		if n := calls.Load(); n != 0 {
			t.Errorf("the provider made %d API calls while validating bad input", n)
		}
	})
}

// errorFragments matches Terraform's output containing the fragments in
// order, whatever white space and line wrapping Terraform puts between words.
func errorFragments(fragments ...string) *regexp.Regexp {
	parts := make([]string, 0, len(fragments))
	for _, f := range fragments {
		words := strings.Fields(f)
		for i, w := range words {
			words[i] = regexp.QuoteMeta(w)
		}
		parts = append(parts, strings.Join(words, `\s+`))
	}
	return regexp.MustCompile(`(?s)` + strings.Join(parts, ".*"))
}
