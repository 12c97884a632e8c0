package main_test

import rego.v1

test_scale_passes_without_hazard if {
	count(denied("scale_hazard", fixture("scale_safe"))) == 0
	count(data.main.deny) == 0 with input as fixture("scale_safe")
}

test_scale_into_a_hazard_is_denied if {
	msgs := denied("scale_hazard", fixture("scale_hazard"))
	count(msgs) == 1
	some m in msgs
	startswith(m, sprintf("[scale_hazard] cluster prod (%s, cks_cluster.prod) changes size from 1 to 2, but data.cks_clusters_drift.fleet reports", [cluster_id(fixture("scale_hazard"))]))
	contains(m, "reports a scale hazard: user firewall rule")
}

# Ignoring the hazard as drift does not make the scale safe.
test_ignored_hazard_still_denies_the_scale if {
	plan := ignore_hazards(fixture("scale_hazard"))
	count(denied("drift", plan)) == 0
	some m in denied("scale_hazard", plan)
	contains(m, "(ignored by ignore[0], which accepts it as drift, not for a scale)")
}

test_scale_of_an_unchecked_cluster_is_denied_unless_allowed if {
	plan := without_type(without_type(fixture("scale_safe"), "cks_clusters_drift"), "cks_cluster_drift")
	some m in denied("scale_hazard", plan)
	contains(m, "changes size from 1 to 2, but no drift check of this plan covers it")
	count(denied("scale_hazard", plan)) == 0 with data.cks.allow_incomplete as true
}

# ignore_hazards moves the fleet check's scale_hazard findings to its
# ignored findings, as an ignore rule on the kind does.
ignore_hazards(plan) := json.patch(plan, [{
	"op": "replace",
	"path": sprintf("/prior_state/values/root_module/resources/%d/values/clusters/0", [i]),
	"value": object.union(c, {
		"findings": [f | some f in c.findings; f.kind != "scale_hazard"],
		"ignored_findings": [object.union(f, {"reason": "accepted", "expires": null, "ignore_index": 0}) |
			some f in c.findings
			f.kind == "scale_hazard"
		],
	}),
}]) if {
	some i, r in plan.prior_state.values.root_module.resources
	r.type == "cks_clusters_drift"
	c := r.values.clusters[0]
}
