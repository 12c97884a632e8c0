# No scale into a hazard.
#
# Denies a plan that changes the size of a cks_cluster while a drift check of
# the plan reports scale_hazard for that cluster, ignored or not: the next
# scale, by any client, would revoke a wrong rule or delete a forward
# (apache/cloudstack#14159). A size change of a cluster no check of the plan
# covers is denied too, unless data.cks.allow_incomplete.
package main

import data.lib.cks
import rego.v1

size_changes contains {"label": cks.cluster_label(rc.address, rc.change.before), "id": rc.change.before.id, "from": rc.change.before.size, "to": rc.change.after.size} if {
	some rc in cks.cluster_changes
	rc.change.actions == ["update"]
	rc.change.before.size != rc.change.after.size
}

deny contains msg if {
	some s in size_changes
	some r in cks.results
	r.cluster_id == s.id
	some f in hazards(r)
	msg := sprintf(
		"[scale_hazard] %s changes size from %v to %v, but %s reports a scale hazard%s: %s",
		[s.label, s.from, s.to, r.check, f.note, f.message],
	)
}

hazards(r) := array.concat(
	[{"message": f.message, "note": ""} |
		some f in object.get(r, "findings", [])
		f.kind == "scale_hazard"
	],
	[{"message": f.message, "note": sprintf(" (ignored by ignore[%d], which accepts it as drift, not for a scale)", [f.ignore_index])} |
		some f in object.get(r, "ignored_findings", [])
		f.kind == "scale_hazard"
	],
)

unchecked contains msg if {
	some s in size_changes
	not s.id in cks.checked_ids
	msg := sprintf(
		"[scale_hazard] %s changes size from %v to %v, but no drift check of this plan covers it: whether the scale is safe is not known",
		[s.label, s.from, s.to],
	)
}

deny contains msg if {
	not cks.params.allow_incomplete
	some msg in unchecked
}

warn contains msg if {
	cks.params.allow_incomplete
	some msg in unchecked
}
