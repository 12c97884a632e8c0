package clusterops

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// Delete deletes the cluster with deleteKubernetesCluster, waits for the
// job, then deletes the CKS rules CloudStack left behind and re-creates the
// user rules its destroy took.
//
// On a network the user supplied (networkid at create), CloudStack's destroy
// removes the API load balancer, ONE TCP firewall rule of exactly 6443
// (removeApiFirewallRule), ONE SSH firewall rule (the one
// removeSshFirewallRule picks) and the forwards of the cluster's VMs
// (KubernetesClusterDestroyWorker): the etcd SSH rules (CKS's single-port
// ones or the provider's etcd SSH range), or the node SSH range when an
// etcd rule was picked, stay on the network's source NAT IP for good. So
// Delete records the rules CKS owns on the cluster's IP before the delete
// and, once the job has succeeded, deletes by id those still there.
// Ownership is package rules' strict one, decided while the VM map still
// exists. On a network CKS created, the network goes with all its rules and
// nothing is left to delete.
//
// Both picks take the first rule their test accepts in an order the DAO
// does not promise, whoever made it: a user's TCP rule on 6443 (or one the
// SSH selector accepts) may go instead of CKS's, and a rule the provider
// re-created for api_cidrs is younger than a user rule made before it, so
// no order of creation makes them safe. Delete therefore records the user
// rules at risk (rules.DestroyCandidates, and those an earlier attempt
// reported) and re-creates, with their protocol, ports
// and CIDRs, those the destroy took, after the job succeeded and after a
// job that failed (the cluster stays in Destroying, the rules may be gone
// already); each is a StepRestored, or a StepBlocked when it cannot be
// re-created. Report.Memo lists them, with the CKS rules, for the caller to
// keep while the cluster exists: a destroy that failed after destroying
// the VMs leaves no VM map to tell CKS's rules by (Intent.EarlierDelete).
//
// A cluster that does not exist gives an error for which
// cloudstack.IsNotFound holds. A delete job that fails is returned with no
// CKS rule cleaned up, because the cluster still exists (CloudStack keeps it
// in Destroying and retries). When the rules cannot be read before the
// delete, the cluster is deleted anyway and the report says that leftovers
// were not looked for.
//
// Once the delete job has succeeded the error is nil, whatever the cleanup
// does: the cluster is gone, and the ids of its leftover rules exist only
// in this call, so a retry could never find them. The cleanup runs on a
// detached, bounded context (the caller's deadline may be spent by the
// job), and each leftover rule it cannot delete, or cannot check, is a
// StepBlocked step naming the rule and its id, for the caller to show as a
// warning (Report.Warnings) while it forgets the cluster.
func (e *Engine) Delete(ctx context.Context, clusterID string, in Intent) (Report, error) {
	rep := Report{ClusterID: clusterID}
	c, err := e.api.GetKubernetesCluster(ctx, clusterID)
	if err != nil {
		return rep, fmt.Errorf("reading Kubernetes cluster %s: %w", clusterID, err)
	}
	rep.Cluster = c
	s, err := e.snapshotOf(ctx, c, in)
	if err != nil {
		if ctx.Err() != nil {
			return rep, err
		}
		e.step(ctx, &rep, StepBlocked, fmt.Sprintf("could not read the cluster's network rules before deleting it, "+
			"so the rules CloudStack leaves behind were not looked for: %v", err))
		s = nil
	}
	rep.Memo = memoOf(s, in.EarlierDelete)
	impact := e.vpcDestroyImpact(ctx, s, &rep)

	e.logf(ctx, "deleting Kubernetes cluster", map[string]any{"cluster_id": clusterID, "state": c.State})
	ref, err := e.api.DeleteKubernetesCluster(ctx, clusterID)
	if err == nil {
		_, err = e.wait(ctx, "deleteKubernetesCluster", ref.JobID)
	}
	if err != nil {
		if cloudstack.IsJobFailure(err) && s != nil {
			// The destroy may have revoked rules before it failed.
			cleanup, cancel := detached(ctx)
			defer cancel()
			e.afterDestroy(cleanup, s, rep.Memo, false, &rep)
		}
		e.restoreAfterFailedDestroy(ctx, s, impact, &rep)
		return rep, fmt.Errorf("deleting Kubernetes cluster %s: %w", clusterID, err)
	}
	rep.Cluster = nil
	if s != nil {
		cleanup, cancel := detached(ctx)
		defer cancel()
		e.afterDestroy(cleanup, s, rep.Memo, true, &rep)
		e.restoreACLAfterDestroy(cleanup, s, impact, &rep)
	}
	return rep, nil
}

// memoOf records the CKS rules and the user rules at risk of the snapshot
// and of an earlier attempt, once each: after a destroy that failed past
// the VMs, the snapshot knows neither.
func memoOf(s *Snapshot, earlier DeleteMemo) DeleteMemo {
	var m DeleteMemo
	if s != nil {
		m.UserRulesAtRisk = rules.DestroyCandidates(s.Classification, s.NetworkForwards)
		for _, cr := range s.Classification.Rules {
			if cr.Owned() {
				m.ClusterRules = append(m.ClusterRules, cr)
			}
		}
	}
	for _, r := range earlier.UserRulesAtRisk {
		if _, ok := findEquivalent(m.UserRulesAtRisk, r); !ok {
			m.UserRulesAtRisk = append(m.UserRulesAtRisk, r)
		}
	}
	for _, cr := range earlier.ClusterRules {
		if !slices.ContainsFunc(m.ClusterRules, func(x rules.ClassifiedRule) bool { return x.Rule.ID == cr.Rule.ID }) {
			m.ClusterRules = append(m.ClusterRules, cr)
		}
	}
	slices.SortStableFunc(m.ClusterRules, func(a, b rules.ClassifiedRule) int {
		return cmp.Or(cmp.Compare(a.Rule.Kind, b.Rule.Kind), cmp.Compare(a.Rule.StartPort, b.Rule.StartPort))
	})
	return m
}

// afterDestroy reads the IP's rules once the destroy job has ended: it
// deletes the CKS rules left behind when the cluster is gone, then
// re-creates the user rules at risk that the destroy took.
func (e *Engine) afterDestroy(ctx context.Context, s *Snapshot, m DeleteMemo, gone bool, rep *Report) {
	var owned []rules.ClassifiedRule
	if gone {
		owned = m.ClusterRules
	}
	if len(owned) == 0 && len(m.UserRulesAtRisk) == 0 {
		return
	}
	now, err := e.rulesOnIP(ctx, s.projectID(), s.PublicIPID)
	switch {
	case cloudstack.IsNotFound(err), cloudstack.IsAddressReleased(err):
		// The IP went with the network CKS created, or the destroy
		// released the VPC cluster's own address: its rules went with it.
		return
	case err != nil:
		e.reportUnchecked(ctx, s, owned, m.UserRulesAtRisk, err, rep)
		return
	}
	now = e.removeLeftovers(ctx, s, owned, now, rep)
	e.restoreTaken(ctx, s, m.UserRulesAtRisk, now, rep)
}

// reportUnchecked names each rule whose fate after the destroy could not
// be read.
func (e *Engine) reportUnchecked(ctx context.Context, s *Snapshot, owned []rules.ClassifiedRule, atRisk []rules.Rule, err error, rep *Report) {
	for _, cr := range owned {
		if cr.Rule.Kind == rules.KindLoadBalancer {
			continue // CloudStack's destroy removes it; the provider never deletes one.
		}
		st := e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not check whether CloudStack left %s (rule %s) on IP %s "+
			"after deleting the cluster: %v; delete it yourself if it is still there",
			s.describeRule(cr.Rule, cr.Purpose), cr.Rule.ID, s.PublicIP, err))
		st.RuleID = cr.Rule.ID
	}
	for _, r := range atRisk {
		st := e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not check whether CloudStack's destroy took your %s (rule %s) "+
			"on IP %s: %v; create it again if it is gone", describeUserRule(r), r.ID, s.PublicIP, err))
		st.RuleID = r.ID
	}
}

// removeLeftovers deletes the CKS rules of the snapshot that outlived the
// cluster's deletion, and returns the IP's rules after it. What it cannot
// delete is reported as StepBlocked steps naming each rule.
func (e *Engine) removeLeftovers(ctx context.Context, s *Snapshot, owned []rules.ClassifiedRule, now []rules.Rule, rep *Report) []rules.Rule {
	for _, cr := range owned {
		if !slices.ContainsFunc(now, func(r rules.Rule) bool { return r.ID == cr.Rule.ID }) {
			continue
		}
		desc := s.describeRule(cr.Rule, cr.Purpose)
		if cr.Rule.Kind == rules.KindLoadBalancer {
			st := e.step(ctx, rep, StepBlocked, fmt.Sprintf("left %s (rule %s), which CloudStack kept after deleting the cluster: "+
				"the provider does not delete load balancer rules", desc, cr.Rule.ID))
			st.RuleID = cr.Rule.ID
			continue
		}
		if err := e.deleteRule(ctx, s, cr.Rule); err != nil {
			st := e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not delete %s (rule %s), which CloudStack left behind "+
				"on IP %s when it deleted the cluster: %v; delete it yourself", desc, cr.Rule.ID, s.PublicIP, err))
			st.RuleID = cr.Rule.ID
			continue
		}
		now = withoutRule(now, cr.Rule.ID)
		st := e.step(ctx, rep, StepRemoved, fmt.Sprintf("deleted %s (rule %s), which CloudStack left behind when it deleted the cluster",
			desc, cr.Rule.ID))
		st.PreviousRuleID = cr.Rule.ID
	}
	return now
}
