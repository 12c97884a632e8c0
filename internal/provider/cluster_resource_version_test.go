package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// TestAccCluster_versionRules checks CKS's upgrade rule: a jump of two minor
// versions and a downgrade are refused naming kubernetes_version_id (a
// warning at plan, an error at apply before any change), with only reads
// made; a one-minor upgrade applies.
func TestAccCluster_versionRules(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := func(semver string) string {
		return env.cluster("versions").version(semver).String()
	}
	resetCalls := func() { env.Sim.ResetCallCounts() }
	onlyReads := func() {
		for command, n := range env.Sim.CallCounts() {
			if !strings.HasPrefix(command, "list") && !strings.HasPrefix(command, "query") && !strings.HasPrefix(command, "get") {
				t.Errorf("a refused upgrade made %d %s call(s)", n, command)
			}
		}
	}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{Config: config("1.32.9")},
			{
				PreConfig:   resetCalls,
				Config:      config("1.34.2"),
				ExpectError: errorFragments("Invalid Kubernetes Version Upgrade", "kubernetes_version_id", "from 1.32.9", "to 1.34.2", "can be upgraded between next minor or patch version releases"),
			},
			{
				PreConfig: onlyReads,
				Config:    config("1.33.13"),
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("kubernetes_version_id", knownvalue.StringExact(env.VersionID("1.33.13"))),
				},
			},
			{
				PreConfig:   resetCalls,
				Config:      config("1.32.9"),
				ExpectError: errorFragments("Invalid Kubernetes Version Upgrade", "kubernetes_version_id", "from 1.33.13", "to 1.32.9", "can not be downgraded"),
			},
			{
				PreConfig:   onlyReads,
				Config:      strings.Replace(config("1.33.13"), env.VersionID("1.33.13"), env.Info.DisabledKubernetesVersions["1.35.0"], 1),
				ExpectError: errorFragments("Kubernetes Version Not Usable", "1.35.0", "is Disabled"),
			},
		},
	})
}
