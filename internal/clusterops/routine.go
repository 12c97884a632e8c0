package clusterops

import "github.com/cloudstack-cks/terraform-provider-cks/internal/rules"

// Which rule changes of a sync are the layout's routine: what the provider
// always does to the rules CKS makes, as opposed to a repair of something
// that went missing or wrong. Right after a create that is all a sync
// should do, so the caller can log those steps where it would otherwise
// warn.

// spanKey is a firewall rule's purpose and public ports.
type spanKey struct {
	purpose    rules.Purpose
	start, end int
}

// cidrRanges are the firewall purposes the provider gives its CIDRs.
var cidrRanges = map[rules.Purpose]bool{
	rules.PurposeNodeSSHRange: true,
	rules.PurposeEtcdSSHRange: true,
	rules.PurposeAPIFirewall:  true,
}

// markRoutine marks the steps from the first one of a sync that applied
// plan p as routine: the etcd SSH range replacing CKS's single-port rules,
// and a rule of the node or etcd SSH range or the API rule re-created on
// the same ports with the CIDRs of ssh_cidrs or api_cidrs. s holds the
// rules after the sync.
func markRoutine(rep *Report, first int, p rules.Plan, s *Snapshot) {
	deleted := map[string]spanKey{}
	for _, a := range p.Actions() {
		if a.Op == rules.OpDelete && cidrRanges[a.Purpose] {
			deleted[a.Rule.ID] = spanKey{a.Purpose, a.Rule.StartPort, a.Rule.End()}
		}
	}
	created := map[string]spanKey{}
	for _, cr := range s.Classification.Rules {
		if cidrRanges[cr.Purpose] {
			created[cr.Rule.ID] = spanKey{cr.Purpose, cr.Rule.StartPort, cr.Rule.End()}
		}
	}
	steps := rep.Steps[first:]
	replaced := map[spanKey]int{}
	for _, st := range steps {
		if k, ok := spanOf(st, deleted, created); ok {
			replaced[k.key] |= k.side
		}
	}
	for i := range steps {
		st := &steps[i]
		k, ok := spanOf(*st, deleted, created)
		st.Routine = st.Kind == StepHardened || (st.Kind == StepRepaired && ok && replaced[k.key] == bothSides)
	}
}

// Sides of a replacement: the rule deleted, the rule created.
const (
	deletedSide = 1 << iota
	createdSide
	bothSides = deletedSide | createdSide
)

type stepSpan struct {
	key  spanKey
	side int
}

// spanOf is the range a step deleted or created, when it did only one of
// the two (a restore does both, and is no routine).
func spanOf(st Step, deleted, created map[string]spanKey) (stepSpan, bool) {
	if k, ok := deleted[st.PreviousRuleID]; ok && st.RuleID == "" {
		return stepSpan{k, deletedSide}, true
	}
	if k, ok := created[st.RuleID]; ok && st.PreviousRuleID == "" {
		return stepSpan{k, createdSide}, true
	}
	return stepSpan{}, false
}
