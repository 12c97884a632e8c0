# METADATA
# title: CKS plan helpers
# description: >-
#   What the CKS policies read from `terraform show -json` of a plan: the
#   drift checks Terraform ran during the plan (cks_cluster_drift,
#   cks_clusters_drift), the checks it put off to apply, the planned
#   cks_cluster changes, and the parameters (data.cks).
package lib.cks

import rego.v1

drift_types := {"cks_cluster_drift", "cks_clusters_drift"}

# Parameters, from data.cks (conftest --data, opa -d); each key has a default.
default_params := {
	"allow_incomplete": false,
	"allowed_ssh_cidrs": ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"],
	"allowed_api_cidrs": ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"],
	"allow_replace": [],
}

params := object.union(default_params, given_params)

default given_params := {}

given_params := data.cks if is_object(data.cks)

# Every resource a module tree of the plan's prior state holds, child
# modules included.
state_resources contains r if {
	walk(object.get(input, ["prior_state", "values", "root_module"], {}), [_, r])
	is_object(r)
	is_string(r.address)
	is_string(r.mode)
}

# checks_read are the drift data sources Terraform read during the plan,
# with their values.
checks_read contains r if {
	some r in state_resources
	r.mode == "data"
	r.type in drift_types
}

# results has one entry per cluster a check read: its id, a label for
# messages, and that cluster's outcome.
results contains result if {
	some r in checks_read
	r.type == "cks_cluster_drift"
	name := object.get(r.values, "cluster_name", name_of(r.values.cluster_id))
	result := object.union(r.values, {
		"check": r.address,
		"cluster_id": r.values.cluster_id,
		"label": cluster_text(name, r.values.cluster_id, r.address),
		"error": null,
	})
}

results contains result if {
	some r in checks_read
	r.type == "cks_clusters_drift"
	some c in r.values.clusters
	result := object.union(c, {
		"check": r.address,
		"cluster_id": c.id,
		"label": cluster_text(c.name, c.id, r.address),
	})
}

# cluster_text names a cluster the same way in every message of every
# policy: "cluster <name> (<id>, <where>)", where is the check or the
# cks_cluster resource of the plan the message is about. A cluster the plan
# creates has no id yet, and a cluster the plan only knows by id no name.
cluster_text(name, id, where) := sprintf("cluster %s (%s, %s)", [name, id, where]) if {
	is_string(name)
	is_string(id)
} else := sprintf("cluster %s (%s)", [name, where]) if {
	is_string(name)
} else := sprintf("cluster %s (%s)", [id, where])

# name_of is the name of the cks_cluster of this plan with that id, null
# when the plan has none.
name_of(id) := name if {
	names := {c.values.name |
		some c in clusters
		c.values.id == id
		is_string(c.values.name)
	} | {rc.change.before.name |
		some rc in cluster_changes
		is_object(rc.change.before)
		rc.change.before.id == id
	}
	count(names) == 1
	some name in names
} else := null

# checked_ids are the clusters some check read during the plan.
checked_ids contains r.cluster_id if some r in results

# checks_deferred are drift data sources Terraform reads only during
# apply (a dependency has changes pending, or an input is unknown), with
# the cluster id when the plan knows it (null otherwise: the cluster is
# being created or replaced).
checks_deferred contains {"address": rc.address, "type": rc.type, "cluster_id": object.get(rc.change.after, "cluster_id", null)} if {
	some rc in object.get(input, "resource_changes", [])
	rc.mode == "data"
	rc.type in drift_types
	"read" in rc.change.actions
}

# cluster_changes are the planned changes of cks_cluster resources.
cluster_changes contains rc if {
	some rc in object.get(input, "resource_changes", [])
	rc.mode == "managed"
	rc.type == "cks_cluster"
}

# clusters are the cks_cluster configurations the plan leads to: the
# planned values of the resources it creates or updates, and the state of
# those it leaves alone (a refresh-only plan lists no change).
clusters contains {"address": rc.address, "values": rc.change.after, "unknown": object.get(rc.change, "after_unknown", {})} if {
	some rc in cluster_changes
	not rc.change.actions == ["delete"]
	is_object(rc.change.after)
}

clusters contains {"address": r.address, "values": r.values, "unknown": {}} if {
	some r in state_resources
	r.mode == "managed"
	r.type == "cks_cluster"
	not changed(r.address)
}

changed(address) if {
	some rc in cluster_changes
	rc.address == address
}

# cluster_label names a cks_cluster resource of the plan for messages.
cluster_label(address, values) := cluster_text(object.get(values, "name", null), object.get(values, "id", null), address)

# pending tells whether finding f of check result r is the change this plan
# makes rather than drift: the plan updates that cluster's attribute from
# what CloudStack has (f.live) to what the check expects (f.expected). A
# finding is drift when CloudStack differs from what was last applied; a
# difference between the configuration and what was applied is a change
# the plan shows, which the apply makes. A refresh-only plan changes
# nothing, so in it every finding is drift.
pending(r, f) if {
	is_string(f.attribute)
	some change in updates_of(r.cluster_id)
	not unknown(object.get(object.get(change, "after_unknown", {}), f.attribute, false))
	value_set(f.attribute, object.get(change.before, f.attribute, null)) == {v | some v in f.live}
	value_set(f.attribute, object.get(change.after, f.attribute, null)) == {v | some v in f.expected}
}

# updates_of are the in-place changes this plan makes to the cks_cluster
# with that id: before is what the refresh read (and, for the inputs
# CloudStack does not return, such as ssh_cidrs, what was last applied),
# after what the configuration asks.
updates_of(id) := [rc.change |
	some rc in cluster_changes
	rc.change.actions == ["update"]
	rc.change.before.id == id
]

# pending_change describes the change of the finding's attribute that
# pending found, for messages.
pending_change(r, f) := sprintf("this plan changes %s of %s from %s to %s", [
	f.attribute,
	cluster_label(rc.address, rc.change.before),
	concat(",", f.live),
	concat(",", f.expected),
]) if {
	rc := [rc |
		some rc in cluster_changes
		rc.change.actions == ["update"]
		rc.change.before.id == r.cluster_id
	][0]
}

# value_set is an attribute's value as a set of strings, as findings give
# live and expected: a list's elements, a single value alone; a CIDR list
# that is not set is what CloudStack opens the rules to.
value_set(attr, v) := object.get(unset_values, attr, set()) if {
	v == null
} else := {sprintf("%v", [x]) | some x in v} if {
	is_array(v)
} else := {sprintf("%v", [v])}

unset_values := {"ssh_cidrs": {"0.0.0.0/0"}, "api_cidrs": {"0.0.0.0/0"}}

unknown(true)

unknown(v) if {
	is_array(v)
	true in v
}
