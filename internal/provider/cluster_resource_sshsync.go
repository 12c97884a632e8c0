package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// refreshSSHRulesInSync sets m.SSHRulesInSync from one rule snapshot of the
// cluster. Directly accessed networks carry no CKS rules, and mid-operation
// (or in Alert, Error, ...) the rules are in flux or recovery owns them, so
// those need no API call. A failed read must not fail the refresh: it keeps
// the prior value.
func (r *clusterResource) refreshSSHRulesInSync(ctx context.Context, m *clusterResourceModel, c *cloudstack.Cluster, kind rules.NetworkKind) {
	if kind == rules.NetworkDirect || (c.State != clusterRunning && c.State != clusterStopped) {
		m.SSHRulesInSync = types.BoolValue(true)
		return
	}
	s, err := r.engine(m).Snapshot(ctx, c.ID)
	if err != nil {
		tflog.Warn(ctx, "could not read the cluster's SSH rules; keeping the previous ssh_rules_in_sync", map[string]any{"error": err.Error()})
		if m.SSHRulesInSync.IsNull() || m.SSHRulesInSync.IsUnknown() {
			// Not known to be out of sync: a guess of false would plan an
			// update on every run until the rules can be read.
			m.SSHRulesInSync = types.BoolValue(true)
		}
		return
	}
	m.SSHRulesInSync = types.BoolValue(sshRulesInSync(s))
}

// sshRulesInSync reports whether Repair would leave the cluster's CKS-owned
// SSH rules as they are: no missing or stale SSH rule it can restore, and no
// CKS firewall rule that a scale would revoke instead of the node range
// (#14159). API rules (never repaired) and rules blocked by a user rule are
// not counted, so that a plan never shows a diff that apply cannot clear.
func sshRulesInSync(s *clusterops.Snapshot) bool {
	if s.Direct() {
		return true
	}
	if len(rules.PlanRepair(s.Layout, s.Classification)) > 0 {
		return false
	}
	if _, ok := s.NodeSSHRange(); !ok {
		// Without a range nothing can be moved after it.
		return true
	}
	for _, h := range s.Hazards {
		if h.Kind == rules.HazardWrongPick && h.Owner == rules.OwnerCKS {
			return false
		}
	}
	return true
}
