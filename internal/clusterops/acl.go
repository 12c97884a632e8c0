package clusterops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// A VPC tier cluster's network ACL items: CKS opens the API, SSH and etcd
// with items of the tier's list (rules.ExpectedACL). The engine reads the
// list with the cluster's rules, creates the items that are missing as CKS
// creates them (moved to the top of the list), and never deletes one: an
// item belongs to the list, which other tiers and clusters may share.

// readTier reads what a VPC tier decides of the cluster's rules: its
// network offering's conserve mode (the API forward or load balancer) and
// its network ACL list with the items.
func (e *Engine) readTier(ctx context.Context, s *Snapshot) error {
	c := &s.Cluster
	nets, err := e.api.ListNetworks(ctx, cloudstack.ListNetworksParams{ID: c.NetworkID, ProjectID: c.ProjectID})
	if err != nil {
		return fmt.Errorf("reading VPC tier %s of cluster %s: %w", c.NetworkID, c.Name, err)
	}
	n := clusterview.FindNetwork(nets, c.NetworkID)
	if n == nil {
		return fmt.Errorf("reading VPC tier %s of cluster %s: it is not visible to these credentials", c.NetworkID, c.Name)
	}
	tier := clusterview.TierOf(n)
	s.Layout.VPCAPI = tier.API
	s.TierName, s.VPCID = tier.Name, tier.VPCID
	if tier.ACLID == "" {
		return nil
	}
	acl, err := e.readACL(ctx, tier.ACLID)
	if err != nil {
		return fmt.Errorf("reading the network ACL list of VPC tier %s: %w", tier.Name, err)
	}
	s.ACL = acl
	return nil
}

// readACL reads a network ACL list and, unless it is default_allow, its
// items.
func (e *Engine) readACL(ctx context.Context, aclID string) (*rules.TierACL, error) {
	return clusterview.ReadTierACL(aclID, clusterview.ACLSource{
		Lists: func() ([]cloudstack.NetworkACLList, error) {
			return e.api.ListNetworkACLLists(ctx, cloudstack.ListNetworkACLListsParams{ID: aclID})
		},
		Items: func() ([]cloudstack.NetworkACLItem, error) {
			return e.api.ListNetworkACLs(ctx, cloudstack.ListNetworkACLsParams{ACLID: aclID})
		},
	})
}

// aclItems reads the items of a list again.
func (e *Engine) aclItems(ctx context.Context, aclID string) ([]rules.ACLItem, error) {
	items, err := e.api.ListNetworkACLs(ctx, cloudstack.ListNetworkACLsParams{ACLID: aclID})
	if err != nil {
		return nil, err
	}
	return clusterview.ACLItems(items), nil
}

// classifyACL compares the tier's list with what CKS keeps there.
func (s *Snapshot) classifyACL() {
	s.ACLClassification = rules.ACLClassification{}
	if s.ACL != nil {
		s.ACLClassification = rules.ClassifyACL(s.Layout, *s.ACL)
	}
}

// describeACLItem names an ACL item with its list for messages.
func (s *Snapshot) describeACLItem(it rules.ACLItem) string {
	return fmt.Sprintf("%s of list %s", rules.DescribeACLItem(it), s.aclName())
}

func (s *Snapshot) aclName() string {
	if s.ACL == nil {
		return ""
	}
	if s.ACL.Name != "" {
		return fmt.Sprintf("%s (%s)", s.ACL.Name, s.ACL.ID)
	}
	return s.ACL.ID
}

// describeACLSync words the ACL items the sync creates, for plans.
func (s *Snapshot) describeACLSync() []string {
	var out []string
	for _, e := range s.ACLClassification.Missing {
		out = append(out, fmt.Sprintf("create the missing %s on the network ACL list %s of VPC tier %s, at the top of the "+
			"list, as CKS creates it", e, s.aclName(), s.TierName))
	}
	return out
}

// applyACLSync creates the ACL items CKS keeps that are missing, each as CKS
// creates it and moved to the top of the list, so that no item of the
// user's decides before it. A create is never sent twice; when its answer
// is lost the list is read for it.
func (e *Engine) applyACLSync(ctx context.Context, s *Snapshot, rep *Report) error {
	if s.ACL == nil || len(s.ACLClassification.Missing) == 0 {
		return nil
	}
	var errs []error
	for _, exp := range s.ACLClassification.Missing {
		it, err := e.createACLItem(ctx, s.ACL, exp.Item())
		if err != nil {
			e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not create the missing %s on the network ACL list %s: %v",
				exp, s.aclName(), err))
			errs = append(errs, fmt.Errorf("creating the %s: %w", exp, err))
			continue
		}
		s.ACL.Items = append(s.ACL.Items, it)
		msg := fmt.Sprintf("created the missing %s as %s", exp, s.describeACLItem(it))
		if moved, err := e.moveACLItemToTop(ctx, s.ACL, it); err != nil {
			msg += fmt.Sprintf("; moving it to the top of the list failed (%v), so an item of yours numbered before it "+
				"decides first", err)
		} else {
			it = moved
			msg += ", moved to the top of the list as CKS does"
		}
		st := e.step(ctx, rep, StepRepaired, msg)
		st.RuleID = it.ID
	}
	s.refreshACL(ctx, e)
	return errors.Join(errs...)
}

// refreshACL reads the list again after changes (numbers move) and
// classifies it; on a failed read the items as the engine left them stay.
func (s *Snapshot) refreshACL(ctx context.Context, e *Engine) {
	if s.ACL == nil {
		return
	}
	if items, err := e.aclItems(ctx, s.ACL.ID); err == nil {
		s.ACL.Items = items
	}
	s.classifyACL()
}

// createACLItem creates an item on the list and waits for it. A failed
// create is not sent again: the list is read, and an equivalent new item
// counts as created (looked for a while when the answer was lost).
func (e *Engine) createACLItem(ctx context.Context, acl *rules.TierACL, it rules.ACLItem) (rules.ACLItem, error) {
	before := slices.Clone(acl.Items)
	ref, err := e.api.CreateNetworkACL(ctx, cloudstack.CreateNetworkACLParams{ACLID: acl.ID, Protocol: it.Protocol,
		StartPort: it.StartPort, EndPort: it.EndPort, CIDRList: slices.Clone(it.CIDRs), TrafficType: it.TrafficType,
		Action: it.Action, Number: it.Number, Reason: it.Reason})
	if err == nil {
		_, err = e.wait(ctx, "createNetworkACL", ref.JobID)
	}
	if err == nil && ref.ID != "" {
		if now, lerr := e.aclItems(ctx, acl.ID); lerr == nil {
			if i := slices.IndexFunc(now, func(x rules.ACLItem) bool { return x.ID == ref.ID }); i >= 0 {
				return now[i], nil
			}
		}
		it.ID = ref.ID
		return it, nil
	}
	if ctx.Err() != nil {
		return rules.ACLItem{}, cmpErr(err, ctx.Err())
	}
	// The item may exist although the call failed, or CloudStack named no
	// id: look before reporting a failure.
	deadline := time.Now().Add(e.opts.UnknownOutcomeWait)
	for {
		if now, lerr := e.aclItems(ctx, acl.ID); lerr == nil {
			if found, ok := newEquivalentACLItem(before, now, it); ok {
				return found, nil
			}
		}
		if err == nil || !outcomeUnknown(err) || time.Now().After(deadline) || !cloudstack.Sleep(ctx, time.Second) {
			return rules.ACLItem{}, cmpErr(err, errors.New("the created item is not on the list"))
		}
	}
}

// newEquivalentACLItem finds an item of now, absent from before, with the
// protocol, ports, traffic type and action of it.
func newEquivalentACLItem(before, now []rules.ACLItem, it rules.ACLItem) (rules.ACLItem, bool) {
	for _, x := range now {
		if slices.ContainsFunc(before, func(b rules.ACLItem) bool { return b.ID == x.ID }) {
			continue
		}
		if strings.EqualFold(x.Protocol, it.Protocol) && x.StartPort == it.StartPort && x.EndPort == it.EndPort &&
			strings.EqualFold(x.TrafficType, it.TrafficType) && strings.EqualFold(x.Action, it.Action) {
			return x, true
		}
	}
	return rules.ACLItem{}, false
}

// moveACLItemToTop moves an item before the list's first one and applies
// the list, as CKS's moveRuleToTheTopInACLList and applyNetworkACL do, and
// returns it as it then is.
func (e *Engine) moveACLItemToTop(ctx context.Context, acl *rules.TierACL, it rules.ACLItem) (rules.ACLItem, error) {
	now, err := e.aclItems(ctx, acl.ID)
	if err != nil {
		return it, err
	}
	var first *rules.ACLItem
	for i := range now {
		if now[i].ID != it.ID && (first == nil || now[i].Number < first.Number) {
			first = &now[i]
		}
	}
	if first == nil || first.Number > it.Number {
		return it, nil // alone, or already first
	}
	ref, err := e.api.MoveNetworkACLItem(ctx, it.ID, "", first.ID)
	if err == nil {
		_, err = e.wait(ctx, "moveNetworkAclItem", ref.JobID)
	}
	if err != nil {
		return it, err
	}
	it.Number = 1
	// The move changed the numbers only; CKS applies the list after its
	// own move (moveRuleToTheTopInACLList, then applyNetworkACL), and so
	// does an update of the item.
	ref, err = e.api.ApplyNetworkACLItem(ctx, it.ID)
	if err == nil {
		_, err = e.wait(ctx, "updateNetworkACLItem", ref.JobID)
	}
	if err != nil {
		return it, fmt.Errorf("it is first on the list, but applying the list to the tiers failed: %w", err)
	}
	return it, nil
}
