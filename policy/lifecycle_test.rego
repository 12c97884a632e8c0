package main_test

import rego.v1

test_updates_pass if {
	count(denied("lifecycle", fixture("scale_safe"))) == 0
	count(denied("lifecycle", fixture("in_sync"))) == 0
}

test_replacement_is_denied if {
	denied("lifecycle", fixture("replace")) == {sprintf("[lifecycle] cluster prod (%s, cks_cluster.prod) would be replaced (delete, create): list it in data.cks.allow_replace if that is meant", [cluster_id(fixture("replace"))])}
}

test_destroy_is_denied if {
	denied("lifecycle", fixture("destroy")) == {sprintf("[lifecycle] cluster prod (%s, cks_cluster.prod) would be destroyed (delete): list it in data.cks.allow_replace if that is meant", [cluster_id(fixture("destroy"))])}
}

test_allowed_replacement_passes if {
	count(denied("lifecycle", fixture("replace"))) == 0 with data.cks.allow_replace as ["cks_cluster.prod"]
}
