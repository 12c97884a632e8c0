# Complete checks.
#
# A gate that cannot look must not pass. Denies a drift check that could not
# compare every view it was asked for (incomplete_views), a cluster it
# skipped (an operation in progress) or could not read (a fleet's error), and
# a check of an existing cluster that Terraform put off to apply while no
# check of the plan covers that cluster (a check of a cluster the plan
# creates or replaces has nothing to look at yet).
# data.cks.allow_incomplete = true turns these into warnings.
package main

import data.lib.cks
import rego.v1

incomplete contains msg if {
	some r in cks.results
	some view, reason in object.get(r, "incomplete_views", {})
	msg := sprintf("[incomplete] %s: %s not checked: %s", [r.label, view, reason])
}

incomplete contains msg if {
	some r in cks.results
	r.skipped == true
	msg := sprintf("[incomplete] %s: skipped: %s", [r.label, r.skip_reason])
}

incomplete contains msg if {
	some r in cks.results
	is_string(r.error)
	msg := sprintf("[incomplete] %s: not checked: %s", [r.label, r.error])
}

incomplete contains msg if {
	some d in cks.checks_deferred
	is_string(d.cluster_id)
	not d.cluster_id in cks.checked_ids
	msg := sprintf(
		"[incomplete] %s: the check runs only during apply (it depends on a change this plan makes, or on a value it does not know yet), and no other check of this plan covers the cluster: check it with cks_clusters_drift, or with cks_cluster_drift on a cluster_id that does not come from a resource this plan changes, or run a refresh-only plan",
		[cks.cluster_text(cks.name_of(d.cluster_id), d.cluster_id, d.address)],
	)
}

deny contains msg if {
	not cks.params.allow_incomplete
	some msg in incomplete
}

warn contains msg if {
	cks.params.allow_incomplete
	some msg in incomplete
}
