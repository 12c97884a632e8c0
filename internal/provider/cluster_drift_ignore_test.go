package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// ignoreHCL is an ignore list of rules written as HCL object bodies.
func ignoreHCL(rules ...string) string {
	return "  ignore = [\n    {" + strings.Join(rules, "},\n    {") + "},\n  ]\n"
}

// A gate with an ignore rule passes on the ignored finding and reports it
// with its reason; once the rule expires, the same configuration fails the
// gate again.
func TestAccClusterDrift_IgnoreRuleAndItsExpiry(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2})
	worker := e.NthWorker(cl, 0)
	if err := e.Sim.StopKubelet(worker.ID, true); err != nil {
		t.Fatal(err)
	}
	node := strings.ToLower(worker.Name)
	// Long enough for the first step to finish on a loaded machine; the
	// second step waits for it.
	expires := time.Now().Add(40 * time.Second).UTC().Truncate(time.Second)
	gate := e.driftHCL(cl.ID, e.sshHCL(cl.ID)+"  fail_on_drift = true\n"+ignoreHCL(
		fmt.Sprintf(`kind = "node_not_ready", node_name = %q, reason = "OPS-42: kubelet under repair", expires = %q`,
			"^"+node+"$", expires.Format(time.RFC3339)),
		`kind = "scale_hazard", reason = "accepted until the next maintenance window"`))
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config: gate,
			ConfigStateChecks: append(expectDriftFindings(),
				expectDriftAttr("summary", knownvalue.StringExact("in sync; 1 finding ignored (1 node_not_ready)")),
				expectDriftAttr("ignored_findings", knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"kind": knownvalue.StringExact(drift.KindNodeNotReady), "node_name": knownvalue.StringExact(node),
					"vm_id": knownvalue.StringExact(worker.ID), "reason": knownvalue.StringExact("OPS-42: kubelet under repair"),
					"expires": knownvalue.StringExact(expires.Format(time.RFC3339)), "ignore_index": knownvalue.Int64Exact(0),
				})})),
				expectDriftAttr("ignored_counts", expectDriftCounts(map[string]int{drift.KindNodeNotReady: 1})),
				expectDriftAttr("ignore_status", knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{"status": knownvalue.StringExact("active"),
						"matched": knownvalue.Int64Exact(1), "expired_matches": knownvalue.Int64Exact(0),
						"reason": knownvalue.StringExact("OPS-42: kubelet under repair")}),
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"status": knownvalue.StringExact("stale"),
						"matched": knownvalue.Int64Exact(0)}),
				})),
			),
		},
		{
			PreConfig: func() { time.Sleep(time.Until(expires) + time.Second) },
			Config:    gate,
			PlanOnly:  true,
			ExpectError: errorFragments("Cluster Drift Detected", "1 finding: 1 node_not_ready",
				"- node_not_ready: Kubernetes node "+node, "fail_on_drift is true"),
		},
	}})
}

// The rules are checked at plan time, each problem against its attribute.
func TestAccClusterDrift_IgnoreRulesAreValidated(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	e := newDriftEnv(t)
	cases := map[string][]string{
		`kind = "node_down", reason = "r"`:                           {"ignore[0].kind", `"node_down" is not a finding kind`},
		`vm_name = "(", reason = "r"`:                                {"ignore[0].vm_name: not a Go regular expression"},
		`node_name = "x", cluster_name = "[", reason = "r"`:          {"ignore[0].cluster_name", "not a Go regular expression"},
		`kind = "node_not_ready", reason = "  "`:                     {"ignore[0].reason", "a reason is mandatory"},
		`kind = "node_not_ready", reason = "r", expires = "31/12"`:   {"ignore[0].expires", "neither an RFC 3339 date"},
		`reason = "everything"`:                                      {"ignore[0]", "at least one of kind, vm_name, node_name"},
		`kind = "node_not_ready", node_name = "a", vm_name = "b"`:    {`attribute "reason" is required`},
		`kind = "node_not_ready", reason = "r", expires = "2026-13"`: {"ignore[0].expires"},
		`kind = "node_not_ready", reason = "r", expires = ""`:        {"ignore[0].expires", "leave expires out"},
	}
	var steps []resource.TestStep
	for rule, fragments := range cases {
		steps = append(steps, resource.TestStep{
			Config:      e.driftHCL("c-1", ignoreHCL(rule)),
			PlanOnly:    true,
			ExpectError: errorFragments(fragments...),
		})
	}
	accTest(t, resource.TestCase{Steps: steps})
}

// The fleet applies the rules cluster by cluster and adds up what each
// did; its clusters report their ignored findings.
func TestAccClustersDrift_IgnoreRules(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	a := e.NewCluster(cloudstack.CreateClusterParams{Name: "ign-a", Size: 1})
	b := e.NewCluster(cloudstack.CreateClusterParams{Name: "ign-b", Size: 1})
	for _, c := range []*cloudstack.Cluster{a, b} {
		if err := e.Sim.StopKubelet(e.NthWorker(c, 0).ID, true); err != nil {
			t.Fatal(err)
		}
	}
	body := "  name_regex = \"^ign-\"\n  node_source = \"kubeconfig\"\n" + ignoreHCL(
		`kind = "node_not_ready", cluster_name = "^ign-a$", reason = "OPS-1"`,
		`kind = "node_not_ready", cluster_name = "^ign-b$", reason = "OPS-2", expires = "2020-01-01"`,
		`node_name = ".", cluster_name = "^ign-a$", reason = "OPS-3 shadowed by OPS-1"`)
	cluster := expectFleetCluster
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		Config: e.fleetHCL(body),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("summary"), knownvalue.StringExact(
				"2 clusters: 1 in sync, 1 drifted (1 finding: 1 node_not_ready), 1 finding ignored (1 node_not_ready)")),
			cluster(0, map[string]knownvalue.Check{"in_sync": knownvalue.Bool(true),
				"ignored_findings": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"kind": knownvalue.StringExact(drift.KindNodeNotReady), "reason": knownvalue.StringExact("OPS-1")})}),
				"summary": knownvalue.StringExact("in sync; 1 finding ignored (1 node_not_ready)")}),
			cluster(1, map[string]knownvalue.Check{"in_sync": knownvalue.Bool(false),
				"ignored_findings": knownvalue.ListExact([]knownvalue.Check{})}),
			statecheck.ExpectKnownValue(fleetAddr, tfjsonpath.New("ignore_status"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectPartial(map[string]knownvalue.Check{"status": knownvalue.StringExact("active"), "matched": knownvalue.Int64Exact(1)}),
				knownvalue.ObjectPartial(map[string]knownvalue.Check{"status": knownvalue.StringExact("expired"),
					"expired_matches": knownvalue.Int64Exact(1)}),
				knownvalue.ObjectPartial(map[string]knownvalue.Check{"status": knownvalue.StringExact("shadowed"),
					"matched": knownvalue.Int64Exact(0)}),
			})),
		},
	}}})
}
