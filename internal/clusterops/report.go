package clusterops

import (
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// StepKind classifies a step of a Report.
type StepKind string

// Step kinds.
const (
	// StepHardened is a change to the provider's rule layout: CKS's
	// single-port etcd SSH rules replaced by one etcd SSH range.
	StepHardened StepKind = "hardened"
	// StepRepaired is a missing CKS rule created or a stale one deleted.
	StepRepaired StepKind = "repaired"
	// StepBlocked is something the engine could not do: a CKS rule it could
	// not create because a rule it may not delete is in the way, a rule it
	// could not remove or check after a delete, or a user rule recorded
	// before a scale that it could not restore.
	StepBlocked StepKind = "blocked"
	// StepRemoved is a CKS rule CloudStack left behind when it deleted the
	// cluster, deleted by the engine.
	StepRemoved StepKind = "removed"
	// StepMoved is a user rule deleted before a scale that would go wrong
	// with it, or would delete it, and re-created after the scale (opt-in).
	StepMoved StepKind = "moved"
	// StepRestored is a user rule that CloudStack's destroy took in the
	// place of CKS's, re-created by the engine.
	StepRestored StepKind = "restored"
	// StepScaled is a scaleKubernetesCluster job, successful or not.
	StepScaled StepKind = "scaled"
	// StepNote is information without a change.
	StepNote StepKind = "note"
)

// Step is one thing an operation did or found, in words.
type Step struct {
	Kind StepKind
	// Message is a sentence fit for a warning diagnostic, e.g. "re-created
	// etcd SSH firewall rule 50000 (id a → b) so that it sorts after the
	// node SSH range".
	Message string
	// RuleID is the rule the step created or deleted, if any;
	// PreviousRuleID is the rule a re-creation replaced.
	RuleID         string
	PreviousRuleID string
	// Routine marks a change the provider makes to every cluster's rules
	// (markRoutine): the etcd SSH range, and a range or the API rule
	// re-created with the configured CIDRs.
	Routine bool
}

// Report is what an operation did, step by step, and the cluster as read
// back at its end.
type Report struct {
	ClusterID string
	Steps     []Step
	// Cluster is the cluster read back at the end (the real size, VMs and
	// state, whatever happened); nil when it could not be read.
	Cluster *cloudstack.Cluster
	// Final is the cluster with its rules as the operation left them, when
	// it read them at the end (so that the caller needs no new read).
	Final *Snapshot
	// Admin is set when the cluster's VM map disagrees with its size, which
	// only an administrator can correct.
	Admin *vmmap.Inconsistency
	// Memo is, for a delete, what the next attempt needs to know when this
	// one fails: the caller keeps it while the cluster exists
	// (Intent.EarlierDelete).
	Memo DeleteMemo
}

// DeleteMemo is what a delete knows of the rules on the cluster's IP before
// its destroy, which a later attempt could not learn again: a destroy that
// fails after it destroyed the VMs leaves the VM map empty, and with it the
// way to tell CKS's rules, and the user rules it took are gone.
type DeleteMemo struct {
	// ClusterRules are the CKS rules, to delete when CloudStack leaves them.
	ClusterRules []rules.ClassifiedRule `json:"cluster_rules,omitempty"`
	// UserRulesAtRisk are the user firewall rules the destroy may take in
	// the place of CKS's (rules.DestroyCandidates), to re-create when it
	// does.
	UserRulesAtRisk []rules.Rule `json:"user_rules_at_risk,omitempty"`
}

// Empty reports whether the memo holds nothing.
func (m DeleteMemo) Empty() bool { return len(m.ClusterRules) == 0 && len(m.UserRulesAtRisk) == 0 }

// Changed reports whether the operation changed anything.
func (r Report) Changed() bool {
	for _, s := range r.Steps {
		switch s.Kind {
		case StepNote, StepBlocked:
		default:
			return true
		}
	}
	return false
}

// StepsOf returns the steps of the given kinds.
func (r Report) StepsOf(kinds ...StepKind) []Step {
	var out []Step
	for _, s := range r.Steps {
		if slices.Contains(kinds, s.Kind) {
			out = append(out, s)
		}
	}
	return out
}

// Messages returns every step's message, in order.
func (r Report) Messages() []string {
	out := make([]string, 0, len(r.Steps))
	for _, s := range r.Steps {
		out = append(out, s.Message)
	}
	return out
}

// Warnings returns the messages worth a warning diagnostic: everything
// the operation changed or could not do, in order. The scale jobs and notes
// are left out: the scale is what the user asked for.
func (r Report) Warnings() []string {
	var out []string
	for _, s := range r.Steps {
		if s.Kind != StepScaled && s.Kind != StepNote {
			out = append(out, s.Message)
		}
	}
	return out
}

// String lists the steps, one per line.
func (r Report) String() string {
	return strings.Join(r.Messages(), "\n")
}

func (r *Report) add(kind StepKind, msg string) *Step {
	r.Steps = append(r.Steps, Step{Kind: kind, Message: msg})
	return &r.Steps[len(r.Steps)-1]
}

// Merge appends the steps of a nested operation and takes its read-back.
func (r *Report) Merge(o Report) {
	r.Steps = append(r.Steps, o.Steps...)
	if o.Cluster != nil {
		r.Cluster = o.Cluster
	}
	if o.Final != nil {
		r.Final = o.Final
	}
	if o.Admin != nil {
		r.Admin = o.Admin
	}
}
