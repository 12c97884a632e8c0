package main_test

import rego.v1

test_incomplete_check_is_denied if {
	msgs := denied("incomplete", fixture("incomplete"))
	count(msgs) == 2
	every m in msgs {
		contains(m, "nodes not checked: getting the kubeconfig")
	}
	count(denied("drift", fixture("incomplete"))) == 0
}

test_incomplete_check_passes_with_a_warning_when_allowed if {
	count(denied("incomplete", fixture("incomplete"))) == 0 with data.cks.allow_incomplete as true
	count(warned("incomplete", fixture("incomplete"))) == 2 with data.cks.allow_incomplete as true
}

test_complete_checks_pass if {
	count(denied("incomplete", fixture("in_sync"))) == 0
	count(denied("incomplete", fixture("drifted"))) == 0
}

# A plan that changes a cluster puts its own check off to apply: another
# check of the plan (the fleet's) covers the cluster, so nothing is missing.
test_check_put_off_to_apply_is_covered_by_another if {
	count(denied("incomplete", fixture("scale_safe"))) == 0
}

test_check_put_off_to_apply_without_cover_is_denied if {
	plan := without_type(fixture("scale_safe"), "cks_clusters_drift")
	some m in denied("incomplete", plan)
	contains(m, sprintf("[incomplete] cluster prod (%s, data.cks_cluster_drift.prod): the check runs only during apply", [cluster_id(plan)]))
}

# The check of a cluster the plan replaces has no cluster to look at yet.
test_check_of_a_replaced_cluster_is_not_incomplete if {
	count(denied("incomplete", fixture("replace"))) == 0
}
