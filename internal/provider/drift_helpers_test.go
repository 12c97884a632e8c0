package provider

import (
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// The drift acceptance tests create their clusters through the CloudStack
// API (not cks_cluster) and cause drift through the simulator's admin
// methods, then read cks_cluster_drift with the real Terraform CLI.

const driftAddr = "data.cks_cluster_drift.test"

// driftClusterAge is how long before the test the clusters were created,
// past the 15-minute grace period, so no VM is still joining.
const driftClusterAge = 40 * time.Minute

// expectDriftFindings checks in_sync, the finding kinds in order, and counts.
func expectDriftFindings(kinds ...string) []statecheck.StateCheck {
	return expectDriftFindingsAt(driftAddr, kinds...)
}

// expectDriftFindingsAt is expectDriftFindings on the data source at addr.
func expectDriftFindingsAt(addr string, kinds ...string) []statecheck.StateCheck {
	findings := make([]knownvalue.Check, 0, len(kinds))
	counts := map[string]int{}
	for _, k := range kinds {
		findings = append(findings, knownvalue.ObjectPartial(map[string]knownvalue.Check{"kind": knownvalue.StringExact(k)}))
		counts[k]++
	}
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("in_sync"), knownvalue.Bool(len(kinds) == 0)),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("findings"), knownvalue.ListExact(findings)),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("counts"), expectDriftCounts(counts)),
	}
}

// expectDriftCounts is the counts map: every kind, zero included.
func expectDriftCounts(counts map[string]int) knownvalue.Check {
	all := map[string]knownvalue.Check{}
	for _, k := range drift.Kinds() {
		all[k] = knownvalue.Int64Exact(int64(counts[k]))
	}
	return knownvalue.MapExact(all)
}

// expectDriftAttr checks one attribute of the drift data source.
func expectDriftAttr(name string, check knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(driftAddr, tfjsonpath.New(name), check)
}

// expectDriftFinding checks fields of the nth finding.
func expectDriftFinding(nth int, fields map[string]knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(driftAddr, tfjsonpath.New("findings").AtSliceIndex(nth), knownvalue.ObjectPartial(fields))
}

// driftContains matches a string attribute containing all of parts.
func driftContains(parts ...string) knownvalue.Check {
	quoted := make([]string, 0, len(parts))
	for _, p := range parts {
		quoted = append(quoted, regexp.QuoteMeta(p))
	}
	return knownvalue.StringRegexp(regexp.MustCompile("(?s)" + strings.Join(quoted, ".*")))
}
