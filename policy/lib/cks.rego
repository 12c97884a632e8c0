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
	result := object.union(r.values, {
		"check": r.address,
		"cluster_id": r.values.cluster_id,
		"label": sprintf("cluster %s (%s)", [r.values.cluster_id, r.address]),
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
		"label": sprintf("cluster %s (%s, %s)", [c.name, c.id, r.address]),
	})
}

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

# label names a cks_cluster resource for messages.
cluster_label(address, values) := sprintf("%s (cluster %s)", [address, values.name]) if is_string(values.name)

else := address
