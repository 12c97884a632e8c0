package clusterops

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// RemoveNode takes an external node out of a cluster with
// removeNodesFromKubernetesCluster; the VM keeps running. A VM that is no
// longer in the cluster's map is left alone: CloudStack lowers the
// cluster's size for every VM it processes, in the cluster or not
// (KubernetesClusterRemoveWorker.updateKubernetesCluster), so only a member
// is ever named. A node CKS made is refused: it goes with a scale.
// Afterwards the provider's tags come off the VM and the node range
// shrinks back over the nodes left.
func (e *Engine) RemoveNode(ctx context.Context, clusterID, vmID string) (Report, error) {
	rep := Report{ClusterID: clusterID}
	c, err := e.api.GetKubernetesCluster(ctx, clusterID)
	if cloudstack.IsNotFound(err) {
		return rep, e.untag(ctx, vmID) // the cluster went, and its map with it
	}
	if err != nil {
		return rep, fmt.Errorf("reading Kubernetes cluster %s: %w", clusterID, err)
	}
	rep.Cluster = c
	member, external := mapMembership(c, vmID)
	switch {
	case !member:
		e.step(ctx, &rep, StepNote, fmt.Sprintf("VM %s is no longer in the VM map of cluster %s: nothing to remove", vmID, c.Name))
		return rep, e.untag(ctx, vmID)
	case !external:
		return rep, fmt.Errorf("VM %s is a node cluster %s made, not an external node: change the cluster's size to remove workers", vmID, c.Name)
	}
	if err := e.removeProblem(ctx, c, vmID); err != nil {
		return rep, err
	}
	e.logf(ctx, "removing an external node", map[string]any{"cluster_id": clusterID, "vm_id": vmID})
	ref, err := e.api.RemoveNodesFromKubernetesCluster(ctx, clusterID, []string{vmID})
	if err == nil {
		_, err = e.wait(ctx, "removeNodesFromKubernetesCluster", ref.JobID)
	}
	ctx, cancel := detached(ctx)
	defer cancel()
	after, rerr := e.api.GetKubernetesCluster(ctx, clusterID)
	if rerr != nil {
		return rep, errors.Join(err, fmt.Errorf("reading Kubernetes cluster %s after removing VM %s: %w", clusterID, vmID, rerr))
	}
	rep.Cluster = after
	if still, _ := mapMembership(after, vmID); still {
		return rep, fmt.Errorf("removing external node %s from Kubernetes cluster %s: it is still in the VM map: %w", vmID, c.Name,
			errors.Join(err, errors.New("CloudStack could not run its removal script through the control node (port 2222)")))
	}
	e.step(ctx, &rep, StepNote, fmt.Sprintf("removed external node %s from cluster %s; the VM keeps running", vmID, after.Name))
	return rep, errors.Join(e.untag(ctx, vmID), e.settleNodeRules(ctx, after, &rep))
}

// mapMembership tells whether a VM is in the cluster's map, and as an
// external node.
func mapMembership(c *cloudstack.Cluster, vmID string) (member, external bool) {
	vm, ok := mapVM(c, vmID)
	return ok, vm.External
}

// mapVM is the row of the cluster's VM map for a VM.
func mapVM(c *cloudstack.Cluster, vmID string) (clusterview.MapVM, bool) {
	vms := clusterview.MapVMs(c)
	if i := slices.IndexFunc(vms, func(vm clusterview.MapVM) bool { return vm.ID == vmID }); i >= 0 {
		return vms[i], true
	}
	return clusterview.MapVM{}, false
}

// removeProblem refuses a removal that would revoke a user's rule:
// CloudStack revokes, for each forward of the VM, the rule "found" in the
// network by the forward's exact ports, whatever it is and whichever IP it
// is on (KubernetesClusterRemoveWorker.removeNodePortForwardingRules,
// FirewallRulesDaoImpl.findByNetworkIdAndPorts).
func (e *Engine) removeProblem(ctx context.Context, c *cloudstack.Cluster, vmID string) error {
	s, err := e.snapshotOf(ctx, c, Intent{})
	if err != nil || s.Direct() {
		return err
	}
	for _, pf := range s.NetworkForwards {
		if pf.VMID != vmID {
			continue
		}
		for _, r := range append(s.Rules, s.NetworkForwards...) {
			if r.ID == pf.ID || r.StartPort != pf.StartPort || r.End() != pf.End() {
				continue
			}
			if cr, ok := s.Classification.Lookup(r.ID); ok && cr.Owned() {
				continue
			}
			return fmt.Errorf("removing external node %s from Kubernetes cluster %s would revoke %s (rule %s): CloudStack "+
				"revokes the rule it finds in the network by the ports of the node's forward %d, whatever rule that is; move it first",
				vmID, c.Name, s.describeRule(r, rules.PurposeUser), r.ID, pf.StartPort)
		}
	}
	return nil
}

// untag deletes the provider's tags from a VM, with the values it has
// (createTags refuses a key the VM has); a VM that is gone needs none.
func (e *Engine) untag(ctx context.Context, vmID string) error {
	vm, err := e.api.GetVirtualMachine(ctx, vmID)
	if cloudstack.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading VM %s: %w", vmID, err)
	}
	tags := map[string]string{}
	for _, k := range []string{TagJoinedCluster, TagManualUpgrade} {
		if v, ok := vm.Tags[k]; ok {
			tags[k] = v
		}
	}
	if len(tags) == 0 {
		return nil
	}
	ref, err := e.api.UntagVirtualMachine(ctx, vmID, tags)
	if err == nil {
		_, err = e.wait(ctx, "deleteTags", ref.JobID)
	}
	if err != nil {
		return fmt.Errorf("deleting the tags %v of VM %s: %w", slices.Sorted(maps.Keys(tags)), vmID, err)
	}
	return nil
}
