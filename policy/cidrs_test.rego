package main_test

import rego.v1

test_private_ssh_cidrs_pass if {
	count(denied("cidr", fixture("in_sync"))) == 0
	count(denied("cidr", fixture("scale_safe"))) == 0
}

test_ssh_cidrs_open_to_the_internet_are_denied if {
	msgs := denied("cidr", fixture("cidr_wide"))
	msgs == {"[cidr] cluster edge (cks_cluster.prod): ssh_cidrs 0.0.0.0/0 is wider than data.cks.allowed_ssh_cidrs allows (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)"}
}

test_allowed_cidrs_are_parameters if {
	count(denied("cidr", fixture("cidr_wide"))) == 0 with data.cks.allowed_ssh_cidrs as ["0.0.0.0/0"]
	some m in denied("cidr", fixture("in_sync")) with data.cks.allowed_ssh_cidrs as ["10.1.0.0/16"]
	contains(m, "ssh_cidrs 10.0.0.0/8 is wider than data.cks.allowed_ssh_cidrs allows (10.1.0.0/16)")
}

# api_cidrs is checked where the resource has it; not set means open.
test_api_cidrs_when_the_resource_has_them if {
	count(denied("cidr", with_api_cidrs(fixture("cidr_wide"), ["10.2.0.0/16"]))) == 1 # ssh_cidrs only
	some m in denied("cidr", with_api_cidrs(fixture("in_sync"), null))
	contains(m, "api_cidrs 0.0.0.0/0 is wider than data.cks.allowed_api_cidrs allows")
}

# with_api_cidrs gives every cks_cluster of a plan an api_cidrs value.
with_api_cidrs(plan, cidrs) := json.patch(plan, array.concat(
	[{"op": "add", "path": sprintf("/resource_changes/%d/change/after/api_cidrs", [i]), "value": cidrs} |
		some i, rc in object.get(plan, "resource_changes", [])
		rc.type == "cks_cluster"
	],
	[{"op": "add", "path": sprintf("/prior_state/values/root_module/resources/%d/values/api_cidrs", [i]), "value": cidrs} |
		some i, r in plan.prior_state.values.root_module.resources
		r.type == "cks_cluster"
	],
))
