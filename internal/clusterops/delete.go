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
// job, then deletes the CKS rules CloudStack left behind.
//
// On a network the user supplied (networkid at create), CloudStack's destroy
// removes the API load balancer, the 6443 firewall rule, ONE SSH firewall
// rule (the one removeSshFirewallRule picks) and the forwards of the
// cluster's VMs (KubernetesClusterDestroyWorker): the etcd SSH rules (CKS's
// single-port ones or the provider's etcd SSH range), or the node SSH range
// when an etcd rule was picked, stay on the network's source NAT IP for good. So Delete records the rules CKS owns on the cluster's IP before
// the delete and, once the job has succeeded, deletes by id those still
// there. User rules are never touched: ownership is package rules' strict
// one, decided while the VM map still exists. On a network CKS created, the
// network goes with all its rules and nothing is left to delete.
//
// A cluster that does not exist gives an error for which
// cloudstack.IsNotFound holds. A delete job that fails is returned with
// nothing cleaned up, because the cluster still exists (CloudStack keeps it
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
	impact := e.vpcDestroyImpact(ctx, s, &rep)

	e.logf(ctx, "deleting Kubernetes cluster", map[string]any{"cluster_id": clusterID, "state": c.State})
	ref, err := e.api.DeleteKubernetesCluster(ctx, clusterID)
	if err == nil {
		_, err = e.wait(ctx, "deleteKubernetesCluster", ref.JobID)
	}
	if err != nil {
		e.restoreAfterFailedDestroy(ctx, s, impact, &rep)
		return rep, fmt.Errorf("deleting Kubernetes cluster %s: %w", clusterID, err)
	}
	rep.Cluster = nil
	if s != nil {
		cleanup, cancel := detached(ctx)
		defer cancel()
		e.removeLeftovers(cleanup, s, &rep)
		e.restoreACLAfterDestroy(cleanup, s, impact, &rep)
	}
	return rep, nil
}

// removeLeftovers deletes the CKS rules of the snapshot that outlived the
// cluster's deletion. What it cannot delete or check is reported as
// StepBlocked steps naming each rule.
func (e *Engine) removeLeftovers(ctx context.Context, s *Snapshot, rep *Report) {
	var owned []rules.ClassifiedRule
	for _, cr := range s.Classification.Rules {
		if cr.Owned() {
			owned = append(owned, cr)
		}
	}
	if len(owned) == 0 {
		return
	}
	// Report in port order, whatever order CloudStack listed the rules in.
	slices.SortStableFunc(owned, func(a, b rules.ClassifiedRule) int {
		return cmp.Or(cmp.Compare(a.Rule.Kind, b.Rule.Kind), cmp.Compare(a.Rule.StartPort, b.Rule.StartPort))
	})
	now, err := e.rulesOnIP(ctx, s.projectID(), s.PublicIPID)
	switch {
	case cloudstack.IsNotFound(err), cloudstack.IsAddressReleased(err):
		// The IP went with the network CKS created, or the destroy
		// released the VPC cluster's own address: its rules went with it.
		return
	case err != nil:
		for _, cr := range owned {
			if cr.Rule.Kind == rules.KindLoadBalancer {
				continue // CloudStack's destroy removes it; the provider never deletes one.
			}
			st := e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not check whether CloudStack left %s (rule %s) on IP %s "+
				"after deleting the cluster: %v; delete it yourself if it is still there",
				s.describeRule(cr.Rule, cr.Purpose), cr.Rule.ID, s.PublicIP, err))
			st.RuleID = cr.Rule.ID
		}
		return
	}
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
		st := e.step(ctx, rep, StepRemoved, fmt.Sprintf("deleted %s (rule %s), which CloudStack left behind when it deleted the cluster",
			desc, cr.Rule.ID))
		st.PreviousRuleID = cr.Rule.ID
	}
}
