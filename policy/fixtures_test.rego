# Helpers of the policy tests. The fixtures are plans of
# examples/policy-gate against the simulator, written by the Go test
# TestAccPolicyFixtures to <dir>/fixtures/<name>/plan.json:
#   opa test policy/ <dir>
# loads them as data.fixtures.<name>. A fixture that is missing makes every
# test that reads it fail.
package main_test

import data.main
import rego.v1

# denied are the deny messages of one policy (by their tag) for a plan.
denied(tag, plan) := {m |
	some m in main.deny with input as plan
	startswith(m, sprintf("[%s]", [tag]))
}

warned(tag, plan) := {m |
	some m in main.warn with input as plan
	startswith(m, sprintf("[%s]", [tag]))
}

# fixture fails the test when the fixture is missing.
fixture(name) := data.fixtures[name] if is_object(data.fixtures[name].planned_values)

# without_type is a plan as if Terraform had not read the data sources of a
# type during the plan.
without_type(plan, type) := json.patch(plan, [{
	"op": "replace",
	"path": "/prior_state/values/root_module/resources",
	"value": [r | some r in plan.prior_state.values.root_module.resources; r.type != type],
}])

# single and fleet are a plan as if only the cluster's own check
# (cks_cluster_drift) or only the fleet's (cks_clusters_drift) were in it.
single(plan) := without_type(plan, "cks_clusters_drift")

fleet(plan) := without_type(plan, "cks_cluster_drift")

# The plans of a change of each attribute the drift checks compare, with
# both checks read during the plan.
pending_fixtures := {
	"pending_ssh_cidrs", "pending_api_cidrs", "pending_size", "pending_offering", "pending_version",
	"pending_every_change",
}

test_every_fixture_is_a_plan if {
	every name in {
		"in_sync", "drifted", "ignored", "ignore_expired", "incomplete", "scale_safe", "scale_hazard",
		"cidr_wide", "new_cluster", "replace", "destroy", "ssh_cidrs_change", "ssh_cidrs_change_widened",
		"pending_ssh_cidrs_widened", "pending_api_cidrs_widened", "pending_every_change_drifted", "changes_applied",
	} | pending_fixtures {
		fixture(name).format_version
	}
}
