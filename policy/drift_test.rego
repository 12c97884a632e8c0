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
	some m in msgs
	contains(m, ", data.cks_clusters_drift.fleet): node_not_ready")
}

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
