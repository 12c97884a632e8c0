package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// isolateProviderEnv makes the provider see no CLOUDSTACK_* variables and no
// ~/.cmk/config, whatever the machine running the tests has.
func isolateProviderEnv(t *testing.T) {
	t.Helper()
	for _, v := range []string{envAPIURL, envAPIKey, envSecretKey, envConfig, envProfile} {
		t.Setenv(v, "")
	}
	t.Setenv("HOME", t.TempDir())
}

const versionLookup = `
data "cks_kubernetes_version" "v" {
  zone_id          = "zone"
  semantic_version = "1.33.13"
}
`

// TestProviderConfigValidationErrors runs the real Terraform CLI and checks
// that each configuration mistake is reported against the attribute that
// caused it (Terraform prints the offending line for a diagnostic with a path).
func TestProviderConfigValidationErrors(t *testing.T) {
	isolateProviderEnv(t)
	cases := []struct {
		name     string
		provider string
		extra    string
		want     string
	}{
		{
			name:     "malformed url",
			provider: `api_url = "ftp://cloud.example.test"` + "\n  api_key = \"k\"\n  secret_key = \"s\"",
			want:     `(?s)Invalid CloudStack API URL.*in provider "cks":.*api_url\s+= "ftp://cloud.example.test".*http or https`,
		},
		{
			name:     "url without host",
			provider: `api_url = "https:///client/api"` + "\n  api_key = \"k\"\n  secret_key = \"s\"",
			want:     `(?s)Invalid CloudStack API URL.*api_url\s+= "https:///client/api".*has no host`,
		},
		{
			name:     "missing keys",
			provider: `api_url = "http://127.0.0.1:1/client/api"`,
			want:     `(?s)Missing CloudStack Api key.*CLOUDSTACK_API_KEY.*Missing CloudStack Secret key.*CLOUDSTACK_SECRET_KEY`,
		},
		{
			name:     "unreadable config file",
			provider: `config = "/nonexistent/cmk/config"`,
			want:     `(?s)Unreadable CloudMonkey Configuration.*config\s+= "/nonexistent/cmk/config".*no\s+such\s+file`,
		},
		{
			name:     "empty secret key",
			provider: `secret_key = ""`,
			want:     `(?s)Empty Provider Attribute.*secret_key\s+= "".*must not be empty`,
		},
		{
			name:     "etcd port out of range",
			provider: `etcd_ssh_start_port = 80`,
			want:     `(?s)Invalid Attribute Value.*etcd_ssh_start_port\s+= 80.*between 1024 and 65535`,
		},
		{
			name:     "bad semantic version in data source",
			provider: `api_url = "http://127.0.0.1:1/client/api"` + "\n  api_key = \"k\"\n  secret_key = \"s\"",
			extra:    "data \"cks_kubernetes_version\" \"bad\" {\n  zone_id = \"z\"\n  semantic_version = \"1.33.x\"\n}\n",
			want:     `(?s)Invalid Semantic Version.*semantic_version\s+= "1.33.x"`,
		},
		{
			name:     "name and semantic version together",
			provider: `api_url = "http://127.0.0.1:1/client/api"` + "\n  api_key = \"k\"\n  secret_key = \"s\"",
			extra:    "data \"cks_kubernetes_version\" \"both\" {\n  zone_id = \"z\"\n  semantic_version = \"1.33.1\"\n  name = \"x\"\n}\n",
			want:     `(?s)Invalid Attribute Combination.*semantic_version.*name`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      fmt.Sprintf("provider \"cks\" {\n  %s\n}\n%s%s", tc.provider, versionLookup, tc.extra),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}
