package clusterops

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// What CloudStack's destroy of a cluster on a VPC tier does to the tier's
// network ACL list, and what Delete does about it. The destroy
// (KubernetesClusterDestroyWorker.deleteKubernetesClusterVpcTierRules,
// removeVpcTierAllowPortACLRule) revokes every Allow item of the list whose
// protocol is exactly "TCP" on exactly 6443 or 22: the user's own such
// items, and the items every other cluster on a tier sharing the list
// relies on. It leaves the 2379 items. Delete cannot stop that without
// changing the user's items, so it re-creates afterwards what others need:
// the user's revoked items as they were (their number, if still free), and
// for the other clusters one item for 6443 and one for 22 as CKS creates
// them, at the top of the list. It deletes the 2379 items the cluster's
// etcd nodes had, unless another cluster with etcd nodes needs one.

// SharingCluster is another cluster on a tier that uses the same network
// ACL list.
type SharingCluster struct {
	ID, Name, Tier string
	EtcdNodes      int64
}

// ACLDestroyImpact is what the destroy of a VPC tier cluster does to the
// tier's network ACL list, and what Delete does after it.
type ACLDestroyImpact struct {
	// List names the network ACL list.
	List string
	// Revoked are the items the destroy revokes.
	Revoked []rules.ACLItem
	// Sharing are the other clusters on tiers that use the list.
	Sharing []SharingCluster
	// RestoreUser are the revoked items that are not CKS's: Delete
	// re-creates them.
	RestoreUser []rules.ACLItem
	// RestoreShared are the CKS items Delete re-creates for Sharing.
	RestoreShared []rules.ACLExpectation
	// LeftEtcd are CKS's 2379 items the destroy leaves that Delete deletes.
	LeftEtcd []rules.ACLItem
}

// Describe words the impact for a plan.
func (i *ACLDestroyImpact) Describe() []string {
	if i == nil || len(i.Revoked)+len(i.LeftEtcd) == 0 {
		return nil
	}
	out := []string{fmt.Sprintf("CloudStack's destroy revokes every Allow item of the network ACL list %s whose protocol is "+
		"exactly \"TCP\" on port 6443 or 22, whoever made it and whichever tier uses the list: %d item(s)", i.List, len(i.Revoked))}
	for _, it := range i.RestoreUser {
		out = append(out, fmt.Sprintf("%s is yours and would be revoked with them: the provider re-creates it after the destroy "+
			"(it is absent meanwhile)", rules.DescribeACLItem(it)))
	}
	if len(i.Sharing) > 0 {
		out = append(out, fmt.Sprintf("cluster(s) %s use the list too and lose their API and SSH access with those items: the "+
			"provider re-creates one item for 6443 and one for 22 after the destroy, at the top of the list, as CKS creates them "+
			"(until then CloudStack cannot reach them, and an operation of theirs in that moment fails)", describeSharing(i.Sharing)))
	}
	for _, it := range i.LeftEtcd {
		out = append(out, fmt.Sprintf("%s, CKS's item for this cluster's etcd nodes, outlives the destroy: the provider deletes it",
			rules.DescribeACLItem(it)))
	}
	return out
}

func describeSharing(list []SharingCluster) string {
	parts := make([]string, 0, len(list))
	for _, c := range list {
		parts = append(parts, fmt.Sprintf("%s (%s) on tier %s", c.Name, c.ID, c.Tier))
	}
	return strings.Join(parts, ", ")
}

// CheckDelete says, without changing anything, what deleting the cluster
// does beyond the cluster itself: on a VPC tier with a list of its own,
// the network ACL items CloudStack's destroy revokes and what the provider
// restores. Nil when there is nothing to say.
func (e *Engine) CheckDelete(ctx context.Context, clusterID string, in Intent) (*ACLDestroyImpact, error) {
	s, err := e.Snapshot(ctx, clusterID, in)
	if err != nil {
		return nil, err
	}
	return e.aclDestroyImpact(ctx, s)
}

// aclDestroyImpact reads the other clusters on tiers that share the list
// and judges the destroy (two calls); nil off VPC tiers and on
// default_allow.
func (e *Engine) aclDestroyImpact(ctx context.Context, s *Snapshot) (*ACLDestroyImpact, error) {
	if s.ACL == nil || s.ACL.DefaultAllow {
		return nil, nil
	}
	sharing, err := e.sharingClusters(ctx, s)
	if err != nil {
		return nil, err
	}
	i := &ACLDestroyImpact{List: s.aclName(), Revoked: rules.DestroyRevokes(*s.ACL), Sharing: sharing}
	for _, it := range i.Revoked {
		if !rules.IsCKSACLItem(it, it.StartPort) {
			i.RestoreUser = append(i.RestoreUser, it)
		}
	}
	if len(sharing) > 0 && len(i.Revoked) > len(i.RestoreUser) {
		i.RestoreShared = []rules.ACLExpectation{{Purpose: rules.PurposeAPIACL, Port: rules.APIPort},
			{Purpose: rules.PurposeSSHACL, Port: rules.SSHPort}}
	}
	i.LeftEtcd = leftEtcdItems(*s.ACL, s.Cluster.EtcdNodes, slices.ContainsFunc(sharing, func(c SharingCluster) bool { return c.EtcdNodes > 0 }))
	return i, nil
}

// leftEtcdItems are the CKS 2379 items to delete after the destroy: as many
// as the cluster had etcd nodes (CKS made one each), the highest numbered
// first, keeping one when another cluster on the list has etcd nodes.
func leftEtcdItems(acl rules.TierACL, etcdNodes int64, othersNeedOne bool) []rules.ACLItem {
	var items []rules.ACLItem
	for _, it := range acl.Items {
		if rules.IsCKSACLItem(it, rules.EtcdClientPort) {
			items = append(items, it)
		}
	}
	slices.SortFunc(items, func(a, b rules.ACLItem) int {
		return cmp.Or(cmp.Compare(b.Number, a.Number), strings.Compare(a.ID, b.ID))
	})
	n := min(int(etcdNodes), len(items))
	if othersNeedOne {
		n = min(n, len(items)-1)
	}
	return items[:max(n, 0)]
}

// sharingClusters are the other clusters, of the cluster's owner, on tiers
// of its VPC that use the same network ACL list.
func (e *Engine) sharingClusters(ctx context.Context, s *Snapshot) ([]SharingCluster, error) {
	c := &s.Cluster
	tiers, err := e.api.ListNetworks(ctx, cloudstack.ListNetworksParams{VPCID: s.VPCID, ProjectID: c.ProjectID})
	if err != nil {
		return nil, fmt.Errorf("listing the tiers of VPC %s: %w", s.VPCID, err)
	}
	names := map[string]string{}
	for i := range tiers {
		if t := clusterview.TierOf(&tiers[i]); t.ACLID == s.ACL.ID && t.ID != c.NetworkID {
			names[t.ID] = t.Name
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	clusters, err := e.api.ListKubernetesClusters(ctx, cloudstack.ListClustersParams{ListAll: true,
		Ownership: cloudstack.Ownership{ProjectID: c.ProjectID}})
	if err != nil {
		return nil, fmt.Errorf("listing the clusters on the tiers that share the network ACL list: %w", err)
	}
	var out []SharingCluster
	for _, o := range clusters {
		if tier, ok := names[o.NetworkID]; ok && o.ID != c.ID && o.State != clusterstate.Destroyed {
			out = append(out, SharingCluster{ID: o.ID, Name: o.Name, Tier: tier, EtcdNodes: o.EtcdNodes})
		}
	}
	slices.SortFunc(out, func(a, b SharingCluster) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// vpcDestroyImpact judges, before the delete, what the destroy does to a VPC
// tier's network ACL list; when it cannot, the report says what was not
// looked after.
func (e *Engine) vpcDestroyImpact(ctx context.Context, s *Snapshot, rep *Report) *ACLDestroyImpact {
	if s == nil {
		return nil
	}
	impact, err := e.aclDestroyImpact(ctx, s)
	if err != nil {
		e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not read which clusters share the network ACL list %s of VPC tier %s, so "+
			"the items CloudStack's destroy revokes from it (every Allow \"TCP\" item on 6443 or 22) were not looked after: %v",
			s.aclName(), s.TierName, err))
	}
	return impact
}

// restoreAfterFailedDestroy re-creates, when the delete failed, the network
// ACL items the user and other clusters need that the destroy revoked before
// it failed: the cluster stays (in Destroying for CloudStack to retry), and
// so do its 2379 items.
func (e *Engine) restoreAfterFailedDestroy(ctx context.Context, s *Snapshot, impact *ACLDestroyImpact, rep *Report) {
	if s == nil || impact == nil {
		return
	}
	cleanup, cancel := detached(ctx)
	defer cancel()
	keep := *impact
	keep.LeftEtcd = nil
	e.restoreACLAfterDestroy(cleanup, s, &keep, rep)
}

// restoreACLAfterDestroy re-creates, once the destroy succeeded, the items
// it revoked that the user or other clusters need, and deletes the 2379
// items it left. Each change is a step; each failure a StepBlocked step
// naming the item.
func (e *Engine) restoreACLAfterDestroy(ctx context.Context, s *Snapshot, i *ACLDestroyImpact, rep *Report) {
	if i == nil || len(i.RestoreUser)+len(i.RestoreShared)+len(i.LeftEtcd) == 0 {
		return
	}
	now, err := e.aclItems(ctx, s.ACL.ID)
	if err != nil {
		e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not read the network ACL list %s after deleting the cluster, so the "+
			"items its destroy revoked were not restored: %v; check %s", i.List, err, strings.Join(i.Describe(), "; ")))
		return
	}
	s.ACL.Items = now
	for _, it := range i.RestoreUser {
		e.restoreUserACLItem(ctx, s, it, rep)
	}
	for _, exp := range i.RestoreShared {
		e.restoreSharedACLItem(ctx, s, exp, i.Sharing, rep)
	}
	for _, it := range i.LeftEtcd {
		e.deleteLeftACLItem(ctx, s, it, rep)
	}
}

func (e *Engine) restoreUserACLItem(ctx context.Context, s *Snapshot, it rules.ACLItem, rep *Report) {
	if slices.ContainsFunc(s.ACL.Items, func(x rules.ACLItem) bool { return sameACLItem(x, it) }) {
		return
	}
	again := it
	again.ID = ""
	if slices.ContainsFunc(s.ACL.Items, func(x rules.ACLItem) bool { return x.Number == it.Number }) {
		again.Number = 0 // taken meanwhile: after the highest
	}
	created, err := e.createACLItem(ctx, s.ACL, again)
	if err != nil {
		e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not re-create your %s, which CloudStack's destroy of the cluster revoked "+
			"(its protocol is exactly \"TCP\" on port %d): %v; re-create it yourself", rules.DescribeACLItem(it), it.StartPort, err))
		return
	}
	s.ACL.Items = append(s.ACL.Items, created)
	st := e.step(ctx, rep, StepRepaired, fmt.Sprintf("re-created your %s as item %s, which CloudStack's destroy of the cluster "+
		"revoked because its protocol is exactly \"TCP\" on port %d", rules.DescribeACLItem(it), created.ID, it.StartPort))
	st.RuleID, st.PreviousRuleID = created.ID, it.ID
}

func (e *Engine) restoreSharedACLItem(ctx context.Context, s *Snapshot, exp rules.ACLExpectation, sharing []SharingCluster, rep *Report) {
	if slices.ContainsFunc(s.ACL.Items, func(x rules.ACLItem) bool { return rules.IsCKSACLItem(x, exp.Port) }) {
		return
	}
	created, err := e.createACLItem(ctx, s.ACL, exp.Item())
	if err != nil {
		e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not re-create the %s on the network ACL list %s, which CloudStack's "+
			"destroy of the cluster revoked and cluster(s) %s need: %v", exp, s.aclName(), describeSharing(sharing), err))
		return
	}
	s.ACL.Items = append(s.ACL.Items, created)
	if moved, err := e.moveACLItemToTop(ctx, s.ACL, created); err == nil {
		created = moved
	}
	st := e.step(ctx, rep, StepRepaired, fmt.Sprintf("re-created the %s as %s for cluster(s) %s, which share the list: CloudStack's "+
		"destroy of the cluster revoked it", exp, s.describeACLItem(created), describeSharing(sharing)))
	st.RuleID = created.ID
}

func (e *Engine) deleteLeftACLItem(ctx context.Context, s *Snapshot, it rules.ACLItem, rep *Report) {
	if !slices.ContainsFunc(s.ACL.Items, func(x rules.ACLItem) bool { return x.ID == it.ID }) {
		return
	}
	ref, err := e.api.DeleteNetworkACL(ctx, it.ID)
	if err == nil {
		_, err = e.wait(ctx, "deleteNetworkACL", ref.JobID)
	}
	if err != nil && !cloudstack.IsNotFound(err) {
		st := e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not delete %s, which CloudStack left behind when it deleted the "+
			"cluster: %v; delete it yourself", s.describeACLItem(it), err))
		st.RuleID = it.ID
		return
	}
	st := e.step(ctx, rep, StepRemoved, fmt.Sprintf("deleted %s, CKS's item for the cluster's etcd nodes, which CloudStack left "+
		"behind when it deleted the cluster", s.describeACLItem(it)))
	st.PreviousRuleID = it.ID
}

// sameACLItem reports whether two items are alike in everything but id and
// number.
func sameACLItem(a, b rules.ACLItem) bool {
	return a.Protocol == b.Protocol && a.StartPort == b.StartPort && a.EndPort == b.EndPort && rules.SameCIDRs(a.CIDRs, b.CIDRs) &&
		strings.EqualFold(a.TrafficType, b.TrafficType) && strings.EqualFold(a.Action, b.Action)
}
