package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// The acceptance harness: every acceptance test runs the real Terraform CLI
// (through terraform-plugin-testing) against its own in-process CloudStack
// simulator, so tests are hermetic and can run in parallel.

// simEnv is one running simulator and how to reach it.
type simEnv struct {
	Sim  *simulator.Simulator
	Info simulator.Info
	// KeyFile holds the seeded key pair's private key (0600), for SSH checks.
	KeyFile string
}

type simConfig struct {
	profile     string
	jobDuration time.Duration
	clock       func() time.Time
	listOrder   string
}

// simOption tweaks the simulator a test starts.
type simOption func(*simConfig)

// withProfile selects the behaviour profile ("4.22.1.1" or "fixed").
func withProfile(p string) simOption { return func(c *simConfig) { c.profile = p } }

// withJobDuration sets how long each async job takes.
func withJobDuration(d time.Duration) simOption { return func(c *simConfig) { c.jobDuration = d } }

// withListOrder fixes the order the simulator lists in, for the one test
// that judges the server's own order; every other test takes the suite's
// order from CKS_SIM_LIST_ORDER ("" for the real server's, "reversed",
// "shuffled"), which make test-list-orders sets.
func withListOrder(o string) simOption { return func(c *simConfig) { c.listOrder = o } }

// withOrderedList keeps the suite's list order unless it is shuffled, which
// hides the server's order: for tests that check an untouched cluster in
// CKS's own etcd rule layout, whose verdict reads that order
// (rules.ArmedEtcdRules) and is a hazard when it cannot be read.
func withOrderedList() simOption {
	return func(c *simConfig) { c.listOrder = simulator.OrderedListOrderFromEnv() }
}

// withClock drives the simulator's clock (VM names, created times, scanner).
func withClock(clock func() time.Time) simOption { return func(c *simConfig) { c.clock = clock } }

// newSimEnv starts a simulator on a free loopback port and closes it when the
// test ends. Sim-only tests need its admin API, so they cannot run against a
// real CloudStack (make testacc-real); there they are skipped with the reason.
func newSimEnv(t *testing.T, opts ...simOption) *simEnv {
	t.Helper()
	if os.Getenv("CKS_ACC_TARGET") == "real" {
		t.Skip("this test drives the embedded simulator's admin API; it does not run against a real CloudStack")
	}
	cfg := simConfig{profile: "4.22.1.1", jobDuration: 0, listOrder: simulator.ListOrderFromEnv()}
	for _, o := range opts {
		o(&cfg)
	}
	sim, err := simulator.New(simulator.Options{Profile: cfg.profile, JobDuration: cfg.jobDuration, Clock: cfg.clock,
		ListOrder: cfg.listOrder})
	if err != nil {
		t.Fatalf("starting the simulator: %v", err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	if err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatalf("starting the simulator: %v", err)
	}
	keyFile := filepath.Join(t.TempDir(), "cks-key")
	if err := os.WriteFile(keyFile, sim.PrivateKeyPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	sim.SetPrivateKeyFile(keyFile)
	return &simEnv{Sim: sim, Info: sim.Info(), KeyFile: keyFile}
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

// VersionID returns the id of a seeded Kubernetes version such as "1.33.13".
func (e *simEnv) VersionID(t *testing.T, semver string) string {
	t.Helper()
	id, ok := e.Info.KubernetesVersions[semver]
	if !ok {
		t.Fatalf("the simulator has no Kubernetes version %s (has %v)", semver, e.Info.KubernetesVersions)
	}
	return id
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
