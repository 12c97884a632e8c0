package clusterops

import (
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// HazardError is returned when a scale would hit rules the engine may not
// change: user firewall rules that CloudStack's removeSshFirewallRule
// (4.21.0 through 4.22.1.1, #14159) would revoke instead of the node SSH
// range, or user port forwards that its forward cleanup would delete.
// Nothing was changed when it is returned.
type HazardError struct {
	ClusterID string
	// Hazards are the blocking hazards, each with an explanation that
	// names the rule.
	Hazards []rules.Hazard
	// OptIn names the setting that lets the engine re-create the rules;
	// empty when no setting can (the rule would clash with CKS's own).
	OptIn string
	// Unfixable explains, when set, why even the opt-in cannot help.
	Unfixable string
}

// Error names every blocking rule and explains the hazard and the way out.
func (e *HazardError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "scaling Kubernetes cluster %s is unsafe: ", e.ClusterID)
	for i, h := range e.Hazards {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(h.Explanation)
	}
	b.WriteString(". ")
	switch {
	case e.Unfixable != "":
		b.WriteString(e.Unfixable)
	default:
		fmt.Fprintf(&b, "User rules are never changed without consent: set %s to let the provider delete and "+
			"re-create them with the same protocol, ports and CIDRs around the scale (they are briefly absent), "+
			"or move or delete them yourself", e.OptIn)
	}
	return b.String()
}

// RecoveryNeededError is returned by Recover when bringing the cluster back
// needs a step that interrupts workloads and the opt-in is off, and by
// Scale when the cluster is in a state CloudStack refuses to scale.
// Nothing was changed when it is returned.
type RecoveryNeededError struct {
	ClusterID string
	State     string
	// Size is the cluster's size (node_count); MapWorkers the worker VMs
	// actually in its VM map.
	Size       int64
	MapWorkers int64
	// Reason says what is wrong; Plan what recovery would do.
	Reason string
	Plan   string
	// OptIn names the setting that allows the plan; empty when the plan
	// needs no opt-in (Scale's case: call Recover).
	OptIn string
}

// Error explains the cluster's condition, the opt-in and what it will do.
func (e *RecoveryNeededError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Kubernetes cluster %s needs recovery: it is in state %s with size %d and %d worker VM(s) in its VM map; %s.",
		e.ClusterID, e.State, e.Size, e.MapWorkers, e.Reason)
	if e.Plan != "" {
		b.WriteString(" ")
		b.WriteString(e.Plan)
	}
	if e.OptIn != "" {
		fmt.Fprintf(&b, " This stops and starts every VM of the cluster, which interrupts its workloads, so it is done only when %s is set.", e.OptIn)
	}
	return b.String()
}
