# Narrow SSH and API sources.
#
# Denies a cks_cluster whose ssh_cidrs (and api_cidrs, where the resource has
# it) hold a CIDR that no CIDR of data.cks.allowed_ssh_cidrs
# (allowed_api_cidrs) contains. Not set means 0.0.0.0/0, which CloudStack
# opens them to. Defaults allow the private ranges only.
package main

import data.lib.cks
import rego.v1

cidr_attributes := {"ssh_cidrs": "allowed_ssh_cidrs", "api_cidrs": "allowed_api_cidrs"}

deny contains msg if {
	some c in cks.clusters
	some attr, param in cidr_attributes
	object.get(c.unknown, attr, false) != true
	some cidr in sources(c.values, attr)
	allowed := cks.params[param]
	not inside(cidr, allowed)
	msg := sprintf(
		"[cidr] %s: %s %s is wider than data.cks.%s allows (%s)",
		[cks.cluster_label(c.address, c.values), attr, cidr, param, concat(", ", allowed)],
	)
}

# sources are the CIDRs an attribute opens, when the resource has it: not
# set means 0.0.0.0/0.
sources(values, attr) := ["0.0.0.0/0"] if {
	object.keys(values)[attr]
	values[attr] == null
}

sources(values, attr) := values[attr] if is_array(values[attr])

inside(cidr, allowed) if {
	some a in allowed
	net.cidr_contains(a, cidr)
}
