package provider

import (
	"fmt"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// The acceptance harness: every acceptance test runs the real Terraform CLI
// (through terraform-plugin-testing) against its own in-process CloudStack
// simulator, so tests are hermetic and can run in parallel.

// simEnv is one running simulator, a client of its admin account and the
// seeded key pair's private key file (simtest.Env).
type simEnv struct{ *simtest.Env }

// newSimEnv starts a simulator on a free loopback port and closes it when the
// test ends. Sim-only tests need its admin API, so they cannot run against a
// real CloudStack (make testacc-real); there they are skipped with the reason.
func newSimEnv(t *testing.T, opts ...simtest.Option) *simEnv {
	t.Helper()
	if os.Getenv("CKS_ACC_TARGET") == "real" {
		t.Skip("this test drives the embedded simulator's admin API; it does not run against a real CloudStack")
	}
	return &simEnv{simtest.Start(t, opts...)}
}

// ProviderConfig is a provider block pointing at the simulator, followed by
// extra HCL.
func (e *simEnv) ProviderConfig(extra ...string) string {
	hcl := fmt.Sprintf(`
provider "cks" {
  api_url    = %q
  api_key    = %q
  secret_key = %q
}
`, e.Info.APIURL, e.Info.APIKey, e.Info.SecretKey)
	for _, x := range extra {
		hcl += x
	}
	return hcl
}

// accTest runs an acceptance test case. Against the simulator it needs no
// TF_ACC opt-in: it is hermetic and always runs, so nothing hides behind a skip.
func accTest(t *testing.T, tc resource.TestCase) {
	t.Helper()
	if tc.ProtoV6ProviderFactories == nil && tc.ProviderFactories == nil && tc.ProtoV5ProviderFactories == nil {
		tc.ProtoV6ProviderFactories = testAccProtoV6ProviderFactories
	}
	resource.UnitTest(t, tc)
}
