package clusterops

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// The upgrade of a cluster with external nodes.
//
// CloudStack's upgrade reaches node i of its VM map, the rows marked for
// manual upgrade left out, through the forward 2222+i
// (KubernetesClusterUpgradeWorker.upgradeCluster,
// filterOutManualUpgradeNodesFromClusterUpgrade, runInstallScriptOnVM). CKS's
// own forwards put the external nodes after the control and worker nodes
// (addFirewallRulesForNodes), but their map rows sit where they were
// joined, and the rows of the manual ones do not count: an external node
// joined before a worker was made, or a manual one before another, gets a
// port that forwards to another node, whose upgrade then fails. So before
// an upgrade the engine points each forward at the node the upgrade will
// reach through it.
//
// Neither the map's order nor a node's manual_upgrade shows in the API (the
// map is listed by row id today, which nothing promises; the response has
// no manual_upgrade), so the order is worked out from what does not depend
// on a list's order: control and worker rows follow their VMs' creation
// times; an external row lies after every worker made before its VM, and
// before every worker the cluster did not have yet when the provider first
// saw it in the map (seen); external rows keep among them the order of their forwards, which
// every CKS rebuild gives in map order. manual_upgrade comes from the
// provider's tag (TagManualUpgrade); a node without one was joined by
// another client and is taken to be joined without it, CloudStack's default.

// UpgradeOrderError is an upgrade whose node order cannot be known.
type UpgradeOrderError struct {
	ClusterID string
	// Ambiguous names each external node and the workers made between its
	// VM's creation and the first time the provider saw it joined.
	Ambiguous []string
}

func (e *UpgradeOrderError) Error() string {
	return fmt.Sprintf("upgrading Kubernetes cluster %s: CloudStack's upgrade reaches node i through port 2222+i in the order "+
		"of its VM map, which its API does not show, and the place of these external nodes in it cannot be told: %s. "+
		"Remove those external nodes before the upgrade and join them again after it, or join them with manual_upgrade",
		e.ClusterID, strings.Join(e.Ambiguous, "; "))
}

// UpgradePlan is the order the upgrade of a cluster with external nodes
// takes its nodes in.
type UpgradePlan struct {
	// Order are the VMs the upgrade reaches through 2222, 2223, ..., in that
	// order; Skipped the external nodes it skips (manual_upgrade).
	Order, Skipped []string
	// Assumed are the external nodes without the provider's tag, taken to
	// be joined without manual_upgrade.
	Assumed []string
}

// CheckUpgradeOrder works out the order the upgrade of a cluster will take
// its nodes in, for the plan; a cluster without external nodes needs none
// (nil, nil). seen is when the provider first saw each external node in
// the cluster's map.
func (e *Engine) CheckUpgradeOrder(ctx context.Context, clusterID string, seen map[string][]string) (*UpgradePlan, error) {
	c, err := e.api.GetKubernetesCluster(ctx, clusterID)
	if err != nil {
		return nil, fmt.Errorf("reading Kubernetes cluster %s: %w", clusterID, err)
	}
	if c.ExternalNodes() == 0 {
		return nil, nil
	}
	s, err := e.snapshotOf(ctx, c, Intent{})
	if err != nil {
		return nil, err
	}
	return e.upgradePlan(ctx, s, seen)
}

// upgradePlan works the order out on a snapshot.
func (e *Engine) upgradePlan(ctx context.Context, s *Snapshot, seen map[string][]string) (*UpgradePlan, error) {
	manual, assumed, err := e.manualUpgrades(ctx, &s.Cluster)
	if err != nil {
		return nil, err
	}
	order, err := mapOrder(s, seen)
	if err != nil {
		return nil, err
	}
	p := &UpgradePlan{Assumed: assumed}
	for _, id := range order {
		if manual[id] {
			p.Skipped = append(p.Skipped, id)
		} else {
			p.Order = append(p.Order, id)
		}
	}
	return p, nil
}

// manualUpgrades reads the provider's tag of each external node.
func (e *Engine) manualUpgrades(ctx context.Context, c *cloudstack.Cluster) (manual map[string]bool, assumed []string, err error) {
	manual = map[string]bool{}
	for _, vm := range clusterview.MapVMs(c) {
		if !vm.External {
			continue
		}
		v, err := e.api.GetVirtualMachine(ctx, vm.ID)
		if err != nil {
			return nil, nil, fmt.Errorf("reading external node %s: %w", vm.ID, err)
		}
		tag, ok := v.Tags[TagManualUpgrade]
		if !ok {
			assumed = append(assumed, fmt.Sprintf("%s (%s)", vm.Name, vm.ID))
		}
		manual[vm.ID] = tag == "true"
	}
	return manual, assumed, nil
}

// mapOrder is the order of the cluster's control, worker and external map
// rows, worked out as the package comment says. seen holds, for each
// external node, the control and worker VMs the cluster had when the
// provider first saw the node in its map: a worker not among them was made
// after the node joined, so its row comes after the node's.
func mapOrder(s *Snapshot, seen map[string][]string) ([]string, error) {
	c := &s.Cluster
	var internal, external []clusterview.MapVM
	for _, vm := range clusterview.MapVMs(c) {
		switch {
		case vm.Role == naming.RoleEtcd:
		case vm.External:
			external = append(external, vm)
		default:
			internal = append(internal, vm)
		}
	}
	slices.SortStableFunc(internal, func(a, b clusterview.MapVM) int {
		return cmp.Or(madeAt(a).Compare(madeAt(b)), cmp.Compare(a.Name, b.Name))
	})
	port := forwardPorts(s)
	slices.SortStableFunc(external, func(a, b clusterview.MapVM) int {
		return cmp.Or(cmp.Compare(port[a.ID], port[b.ID]), cmp.Compare(a.Name, b.Name))
	})
	var ambiguous []string
	after := make([][]clusterview.MapVM, len(internal)+1) // external rows after internal row i-1
	for _, x := range external {
		slot, between := externalSlot(x, internal, seen)
		if len(between) > 0 {
			ambiguous = append(ambiguous, fmt.Sprintf("external node %s (%s) and worker(s) %s", x.Name, x.ID, strings.Join(between, ", ")))
			continue
		}
		after[slot] = append(after[slot], x)
	}
	if len(ambiguous) > 0 {
		return nil, &UpgradeOrderError{ClusterID: c.ID, Ambiguous: ambiguous}
	}
	var out []string
	for i := range after {
		if i > 0 {
			out = append(out, internal[i-1].ID)
		}
		for _, x := range after[i] {
			out = append(out, x.ID)
		}
	}
	return out, nil
}

// externalSlot is the number of control and worker rows before an
// external node's row: those made before its VM was (it can only join
// after), and not those the cluster did not have when the provider first
// saw it. It returns the workers it cannot place the node against.
func externalSlot(x clusterview.MapVM, internal []clusterview.MapVM, seen map[string][]string) (int, []string) {
	known, ok := seen[x.ID]
	vmMade := x.Created // seconds: the node's VM was made no earlier
	slot := 0
	var between []string
	for i, w := range internal {
		switch {
		case madeAt(w).Before(vmMade):
			slot = i + 1
		case ok && !slices.Contains(known, w.ID):
		default:
			between = append(between, w.Name)
		}
	}
	return slot, between
}

// madeAt is when CKS made a control or worker VM: the hexadecimal suffix of
// its name is the creation time in milliseconds
// (KubernetesClusterResourceModifierActionWorker's node names), finer than
// the creation time the API reports, which is the time for a VM named
// otherwise.
func madeAt(vm clusterview.MapVM) time.Time {
	if i := strings.LastIndexByte(vm.Name, '-'); i >= 0 {
		if ms, err := strconv.ParseInt(vm.Name[i+1:], 16, 64); err == nil && len(vm.Name)-i-1 >= 10 {
			return time.UnixMilli(ms)
		}
	}
	return vm.Created
}

// forwardPorts maps each node VM to the public port of its SSH forward on
// the cluster's IP.
func forwardPorts(s *Snapshot) map[string]int {
	out := map[string]int{}
	for _, r := range s.Rules {
		if r.Kind == rules.KindPortForward && r.PrivatePort == rules.SSHPort && r.StartPort >= rules.NodeSSHStartPort &&
			r.StartPort < rules.APIPort {
			out[r.VMID] = r.StartPort
		}
	}
	return out
}

// alignForUpgrade points the node forwards at the nodes the upgrade will
// reach through them: 2222+i at the i-th node it takes, the skipped ones
// after. Moving a forward deletes it first (two forwards of one port
// conflict), so the nodes moved have no SSH until their forward is back.
func (e *Engine) alignForUpgrade(ctx context.Context, s *Snapshot, p *UpgradePlan, rep *Report) error {
	want := map[string]int{}
	for i, id := range append(slices.Clone(p.Order), p.Skipped...) {
		want[id] = rules.NodeSSHStartPort + i
	}
	var moved []rules.Rule
	for _, r := range s.Rules {
		if port, ok := want[r.VMID]; ok && r.Kind == rules.KindPortForward && r.PrivatePort == rules.SSHPort &&
			r.StartPort >= rules.NodeSSHStartPort && r.StartPort < rules.APIPort && r.StartPort != port {
			moved = append(moved, r)
		}
	}
	if len(moved) == 0 {
		return nil
	}
	ctx, cancel := detached(ctx)
	defer cancel()
	cur := slices.Clone(s.Rules)
	var errs []error
	for _, r := range moved {
		if err := e.deleteRule(ctx, s, r); err != nil {
			errs = append(errs, fmt.Errorf("moving %s for the upgrade: %w", s.describeRule(r, rules.PurposeNodeSSHForward), err))
			continue
		}
		cur = withoutRule(cur, r.ID)
	}
	for _, r := range moved {
		next := r
		next.ID, next.StartPort, next.EndPort = "", want[r.VMID], want[r.VMID]
		created, _, err := e.createRule(ctx, s, cur, next)
		if err != nil {
			errs = append(errs, fmt.Errorf("creating %s for the upgrade: %w", s.describeRule(next, rules.PurposeNodeSSHForward), err))
			continue
		}
		cur = append(cur, created)
		st := e.step(ctx, rep, StepRepaired, fmt.Sprintf("moved %s to port %d (rule %s → %s): CloudStack's upgrade reaches that "+
			"node through it", s.describeRule(r, rules.PurposeNodeSSHForward), created.StartPort, r.ID, created.ID))
		st.RuleID, st.PreviousRuleID = created.ID, r.ID
	}
	s.Rules = cur
	s.reclassify()
	return errors.Join(errs...)
}

// SightExternalNodes records, for each external node of the cluster not
// yet in prior, the control and worker VMs the cluster has now; the
// entries of prior whose node is still an external node of the cluster
// are kept as they were. It is what the provider keeps between refreshes
// for the upgrade's node order.
func SightExternalNodes(c *cloudstack.Cluster, prior map[string][]string) map[string][]string {
	vms := clusterview.MapVMs(c)
	var internal []string
	for _, vm := range vms {
		if !vm.External && vm.Role != naming.RoleEtcd {
			internal = append(internal, vm.ID)
		}
	}
	slices.Sort(internal)
	out := map[string][]string{}
	for _, vm := range vms {
		if !vm.External {
			continue
		}
		if known, ok := prior[vm.ID]; ok {
			out[vm.ID] = known
		} else {
			out[vm.ID] = internal
		}
	}
	return out
}
