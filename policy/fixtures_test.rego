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

test_every_fixture_is_a_plan if {
	every name in {
		"in_sync", "drifted", "ignored", "ignore_expired", "incomplete", "scale_safe", "scale_hazard",
		"cidr_wide", "replace", "destroy",
	} {
		fixture(name).format_version
	}
}
