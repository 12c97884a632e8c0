package clusterops

import (
	"context"
	"errors"
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
// cluster's VMs (spec §2.8): the etcd firewall rules 50000+, or the node SSH
// range when an etcd rule was picked, stay on the network's source NAT IP
// for good. So Delete records the rules CKS owns on the cluster's IP before
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
func (e *Engine) Delete(ctx context.Context, clusterID string) (Report, error) {
	rep := Report{ClusterID: clusterID}
	c, err := e.api.GetKubernetesCluster(ctx, clusterID)
	if err != nil {
		return rep, fmt.Errorf("reading Kubernetes cluster %s: %w", clusterID, err)
	}
	rep.Cluster = c
	s, err := e.snapshotOf(ctx, c)
	if err != nil {
		if ctx.Err() != nil {
			return rep, err
		}
		e.step(ctx, &rep, StepBlocked, fmt.Sprintf("could not read the cluster's network rules before deleting it, "+
			"so the rules CloudStack leaves behind were not looked for: %v", err))
		s = nil
	}

	e.logf(ctx, "deleting Kubernetes cluster", map[string]any{"cluster_id": clusterID, "state": c.State})
	ref, err := e.api.DeleteKubernetesCluster(ctx, clusterID)
	if err == nil {
		_, err = e.wait(ctx, "deleteKubernetesCluster", ref.JobID)
	}
	if err != nil {
		return rep, fmt.Errorf("deleting Kubernetes cluster %s: %w", clusterID, err)
	}
	rep.Cluster = nil
	if s == nil {
		return rep, nil
	}
	return rep, e.removeLeftovers(ctx, s, &rep)
}

// removeLeftovers deletes the CKS rules of the snapshot that outlived the
// cluster's deletion.
func (e *Engine) removeLeftovers(ctx context.Context, s *Snapshot, rep *Report) error {
	var owned []rules.ClassifiedRule
	for _, cr := range s.Classification.Rules {
		if cr.Owned() {
			owned = append(owned, cr)
		}
	}
	if len(owned) == 0 {
		return nil
	}
	now, err := e.rulesOnIP(ctx, s.projectID(), s.PublicIPID)
	switch {
	case cloudstack.IsNotFound(err):
		// The IP went with the network CKS created (or with the VPC
		// cluster's own address), and its rules with it.
		return nil
	case err != nil:
		return fmt.Errorf("listing the rules left on IP %s after deleting Kubernetes cluster %s: %w", s.PublicIP, s.Cluster.ID, err)
	}
	var errs []error
	for _, cr := range owned {
		if !slices.ContainsFunc(now, func(r rules.Rule) bool { return r.ID == cr.Rule.ID }) {
			continue
		}
		desc := s.describeRule(cr.Rule, cr.Purpose)
		if cr.Rule.Kind == rules.KindLoadBalancer {
			e.step(ctx, rep, StepBlocked, fmt.Sprintf("left %s (rule %s), which CloudStack kept after deleting the cluster: "+
				"the provider does not delete load balancer rules", desc, cr.Rule.ID))
			continue
		}
		if err := e.deleteRule(ctx, s, cr.Rule); err != nil {
			e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not delete %s (rule %s), which CloudStack left behind: %v", desc, cr.Rule.ID, err))
			errs = append(errs, fmt.Errorf("deleting %s (rule %s): %w", desc, cr.Rule.ID, err))
			continue
		}
		st := e.step(ctx, rep, StepRemoved, fmt.Sprintf("deleted %s (rule %s), which CloudStack left behind when it deleted the cluster",
			desc, cr.Rule.ID))
		st.PreviousRuleID = cr.Rule.ID
	}
	if len(errs) > 0 {
		return fmt.Errorf("the cluster was deleted, but removing the rules CloudStack left behind failed: %w", errors.Join(errs...))
	}
	return nil
}
