package clusterops

import (
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// TestMarkRoutine: the etcd SSH range and a range re-created on its ports
// with the configured CIDRs are routine; a repair of a rule that went
// missing, a restore and a blocked rule are not.
func TestMarkRoutine(t *testing.T) {
	t.Parallel()
	fw := func(id string, p rules.Purpose, start, end int) rules.ClassifiedRule {
		return rules.ClassifiedRule{Purpose: p, Rule: rules.Rule{ID: id, Kind: rules.KindFirewall, StartPort: start, EndPort: end}}
	}
	s := &Snapshot{Classification: rules.Classification{Rules: []rules.ClassifiedRule{
		fw("narrow", rules.PurposeNodeSSHRange, 2222, 2223),
		fw("api", rules.PurposeAPIFirewall, 6443, 6443),
		{Purpose: rules.PurposeNodeSSHForward, Rule: rules.Rule{ID: "fwd", Kind: rules.KindPortForward, StartPort: 2222}},
		fw("etcd", rules.PurposeEtcdSSHRange, 50000, 50002),
	}}}
	p := rules.Plan{Waves: [][]rules.Action{{
		{Op: rules.OpDelete, Purpose: rules.PurposeNodeSSHRange, Rule: rules.Rule{ID: "open", Kind: rules.KindFirewall, StartPort: 2222, EndPort: 2223}},
		{Op: rules.OpDelete, Purpose: rules.PurposeEtcdFirewall, Rule: rules.Rule{ID: "single", Kind: rules.KindFirewall, StartPort: 50000}},
	}}}
	rep := &Report{Steps: []Step{
		{Kind: StepNote, Message: "before the sync"},
		{Kind: StepRepaired, Message: "created missing node SSH firewall range from 10.0.0.0/8", RuleID: "narrow"},
		{Kind: StepRepaired, Message: "deleted stale node SSH firewall range", PreviousRuleID: "open"},
		{Kind: StepHardened, Message: "deleted CKS's etcd SSH firewall rule", PreviousRuleID: "single"},
		{Kind: StepHardened, Message: "created etcd SSH range", RuleID: "etcd"},
		{Kind: StepRepaired, Message: "created missing API firewall rule", RuleID: "api"},
		{Kind: StepRepaired, Message: "created missing node SSH forward", RuleID: "fwd"},
		{Kind: StepRepaired, Message: "restored node SSH range", RuleID: "narrow", PreviousRuleID: "open"},
		{Kind: StepBlocked, Message: "could not create missing node SSH forward"},
	}}
	markRoutine(rep, 1, p, s)
	want := []bool{false, true, true, true, true, false, false, false, false}
	for i, st := range rep.Steps {
		if st.Routine != want[i] {
			t.Errorf("step %d (%s): routine %v, want %v", i, st.Message, st.Routine, want[i])
		}
	}
}
