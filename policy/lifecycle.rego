# No cluster replaced or destroyed.
#
# Denies a plan that replaces or destroys a cks_cluster: a cluster is never
# recreated by accident. The addresses in data.cks.allow_replace may be.
package main

import data.lib.cks
import rego.v1

deny contains msg if {
	some rc in cks.cluster_changes
	"delete" in rc.change.actions
	not rc.address in cks.params.allow_replace
	what := object.get({true: "replaced"}, "create" in rc.change.actions, "destroyed")
	msg := sprintf(
		"[lifecycle] %s would be %s (%s): list it in data.cks.allow_replace if that is meant",
		[cks.cluster_label(rc.address, rc.change.before), what, concat(", ", rc.change.actions)],
	)
}
