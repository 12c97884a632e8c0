package main_test

import rego.v1

test_drift_passes_a_cluster_in_sync if {
	count(denied("drift", fixture("in_sync"))) == 0
	count(data.main.deny) == 0 with input as fixture("in_sync")
}

test_drift_denies_each_finding_of_each_check if {
	msgs := denied("drift", fixture("drifted"))
	count(msgs) == 2 # the cluster's own check and the fleet's
	every m in msgs {
		contains(m, "node_not_ready: Kubernetes node ")
		contains(m, "is not Ready")
	}

	# One naming scheme for the cluster, whichever check saw it.
	id := cluster_id(fixture("drifted"))
	msgs == {
	m |
		some check in {"data.cks_cluster_drift.prod", "data.cks_clusters_drift.fleet"}
		some m in msgs
		startswith(m, sprintf("[drift] cluster prod (%s, %s): node_not_ready: ", [id, check]))
	}
}

# The plan that changes ssh_cidrs within the allowed CIDRs, with the
# example as it is (the fleet's check is read during the plan, the
# cluster's own only during apply): the finding is the change the plan
# makes, a warning, not drift.
test_pending_ssh_cidrs_change_passes_with_a_warning if {
	plan := fixture("ssh_cidrs_change")
	count(data.main.deny) == 0 with input as plan
	msgs := warned("pending", plan)
	count(msgs) == 1
	some m in msgs
	contains(m, "ssh_cidrs_mismatch: node SSH firewall range 2222-2223")
	contains(m, sprintf("(this plan changes ssh_cidrs of cluster prod (%s, cks_cluster.prod) from 10.0.0.0/8 to 192.168.0.0/16: not drift)", [cluster_id(plan)]))
}

# A change of each attribute the checks compare passes, whichever check
# the plan reads: the cluster's own, the fleet's, or both.
test_pending_change_of_each_attribute_passes if {
	every name in pending_fixtures {
		every plan in [fixture(name), single(fixture(name)), fleet(fixture(name))] {
			count(data.main.deny) == 0 with input as plan
		}
	}
}

test_pending_cidr_changes_warn_once_per_check if {
	count(warned("pending", fixture("pending_ssh_cidrs"))) == 2
	count(warned("pending", fixture("pending_api_cidrs"))) == 2
	count(warned("pending", single(fixture("pending_api_cidrs")))) == 1
	count(warned("pending", fleet(fixture("pending_every_change")))) == 2
}

# Drift in the same plan is still denied: a rule widened out of band, a
# stopped kubelet.
test_drift_beside_a_pending_change_is_denied if {
	count(denied("drift", fixture("ssh_cidrs_change_widened"))) > 0
	every name in {"pending_ssh_cidrs_widened", "pending_api_cidrs_widened"} {
		every plan in [fixture(name), single(fixture(name)), fleet(fixture(name))] {
			some m in denied("drift", plan)
			contains(m, "is open to 0.0.0.0/0")
		}
	}
	every plan in [fixture("pending_every_change_drifted"), single(fixture("pending_every_change_drifted")), fleet(fixture("pending_every_change_drifted"))] {
		msgs := denied("drift", plan)
		count(msgs) > 0
		every m in msgs {
			contains(m, "node_not_ready")
		}
		count(warned("pending", plan)) > 0
	}
}

# Only a plan that makes the change has a pending change: the same finding
# in a plan without it (a refresh-only plan changes nothing) is drift, and
# so is one whose cluster CloudStack has with other CIDRs than the plan
# changes them from.
test_pending_needs_the_change_in_the_plan if {
	plan := fixture("pending_ssh_cidrs")
	count(denied("drift", without_cluster_changes(plan))) == 2
	count(denied("drift", with_ssh_cidrs_before(plan, ["10.1.0.0/16"]))) == 2
	count(denied("drift", with_ssh_cidrs_before(plan, ["10.0.0.0/8"]))) == 0
}

test_new_cluster_and_applied_changes_pass if {
	count(data.main.deny) == 0 with input as fixture("new_cluster")
	count(data.main.deny) == 0 with input as fixture("changes_applied")
	count(data.main.warn) == 0 with input as fixture("changes_applied")
}

# cluster_id is the id of the plan's cks_cluster.prod.
cluster_id(plan) := id if {
	some r in plan.prior_state.values.root_module.resources
	r.address == "cks_cluster.prod"
	id := r.values.id
}

without_cluster_changes(plan) := json.patch(plan, [{
	"op": "replace",
	"path": "/resource_changes",
	"value": [rc | some rc in plan.resource_changes; rc.type != "cks_cluster"],
}])

with_ssh_cidrs_before(plan, cidrs) := json.patch(plan, array.concat([], [{
	"op": "replace",
	"path": sprintf("/resource_changes/%d/change/before/ssh_cidrs", [i]),
	"value": cidrs,
} |
	some i, rc in plan.resource_changes
	rc.type == "cks_cluster"
]))

test_ignored_finding_passes_with_a_warning_giving_the_reason if {
	count(denied("drift", fixture("ignored"))) == 0
	msgs := warned("ignored", fixture("ignored"))
	count(msgs) == 2
	every m in msgs {
		contains(m, "node_not_ready")
		contains(m, "(ignore[0]: OPS-42: kubelet under repair)")
	}
}

test_expired_ignore_rule_denies_again_and_says_so if {
	count(denied("drift", fixture("ignore_expired"))) == 2
	count(warned("ignored", fixture("ignore_expired"))) == 0
	some m in warned("ignore", fixture("ignore_expired"))
	contains(m, "ignore[0] (OPS-42: kubelet under repair) is expired")
}

test_shadowed_ignore_rule_passes_and_says_so if {
	count(denied("drift", fixture("ignore_shadowed"))) == 0
	some m in warned("ignore", fixture("ignore_shadowed"))
	contains(m, "ignore[1] (OPS-43: any NotReady node) is shadowed")
}

# A cluster without ssh_cidrs has its SSH rules open to 0.0.0.0/0: a plan
# that sets ssh_cidrs changes it from there.
test_pending_change_from_unset_cidrs if {
	plan := from_unset_ssh_cidrs(fixture("pending_ssh_cidrs"))
	count(denied("drift", plan)) == 0
	count(warned("pending", plan)) == 2
}

from_unset_ssh_cidrs(plan) := json.patch(plan, array.concat(
	[{"op": "replace", "path": sprintf("/resource_changes/%d/change/before/ssh_cidrs", [i]), "value": null} |
		some i, rc in plan.resource_changes
		rc.type == "cks_cluster"
	],
	array.concat(
		[{"op": "replace", "path": sprintf("/prior_state/values/root_module/resources/%d/values/findings/%d/live", [i, j]), "value": ["0.0.0.0/0"]} |
			some i, r in plan.prior_state.values.root_module.resources
			r.type == "cks_cluster_drift"
			some j, f in r.values.findings
			f.attribute == "ssh_cidrs"
		],
		[{"op": "replace", "path": sprintf("/prior_state/values/root_module/resources/%d/values/clusters/%d/findings/%d/live", [i, k, j]), "value": ["0.0.0.0/0"]} |
			some i, r in plan.prior_state.values.root_module.resources
			r.type == "cks_clusters_drift"
			some k, c in r.values.clusters
			some j, f in c.findings
			f.attribute == "ssh_cidrs"
		],
	),
))
