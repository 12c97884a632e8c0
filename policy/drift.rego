# No drift.
#
# Denies every finding of a drift check the plan ran (cks_cluster_drift,
# cks_clusters_drift), so that a drifted cluster fails the gate, except a
# finding that is the change the plan makes: the plan updates that
# cluster's attribute from what CloudStack has to what the check expects
# (an ssh_cidrs change the check is given already, for instance). Such a
# finding is listed as a warning ([pending]); anything else CloudStack
# differs in, in the same plan, is still denied. Findings that the checks'
# ignore rules accept are not findings: they are listed as warnings with
# their reason, as are expired, stale and shadowed rules.
package main

import data.lib.cks
import rego.v1

deny contains msg if {
	some r in cks.results
	some f in object.get(r, "findings", [])
	not cks.pending(r, f)
	msg := sprintf("[drift] %s: %s: %s", [r.label, f.kind, f.message])
}

warn contains msg if {
	some r in cks.results
	some f in object.get(r, "findings", [])
	cks.pending(r, f)
	msg := sprintf("[pending] %s: %s: %s (%s: not drift)", [r.label, f.kind, f.message, cks.pending_change(r, f)])
}

warn contains msg if {
	some r in cks.results
	some f in object.get(r, "ignored_findings", [])
	until := object.get({true: ""}, f.expires == null, sprintf(", until %s", [f.expires]))
	msg := sprintf("[ignored] %s: %s: %s (ignore[%d]: %s%s)", [r.label, f.kind, f.message, f.ignore_index, f.reason, until])
}

warn contains msg if {
	some r in cks.checks_read
	some i, s in object.get(r.values, "ignore_status", [])
	s.status in {"stale", "shadowed", "expired"}
	msg := sprintf("[ignore] %s: ignore[%d] (%s) is %s: %s", [r.address, i, s.reason, s.status, ignore_advice[s.status]])
}

ignore_advice := {
	"stale": "it matched no finding; remove it or fix its criteria",
	"shadowed": "an earlier rule takes every finding it matches; remove it or move it before that rule",
	"expired": "it ignores nothing any more; fix the drift or extend its expiry",
}
