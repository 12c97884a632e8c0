package clusterops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// External nodes: VMs a user made, joined to a cluster as workers with
// addNodesToKubernetesCluster and taken out with
// removeNodesFromKubernetesCluster (CloudStack 4.21+).
//
// CloudStack checks little before it acts: the cluster only has to exist,
// and VMs it cannot take are dropped without an error
// (KubernetesClusterManagerImpl.validateNodes), a VM whose node check fails
// is skipped and the job still succeeds
// (AddNodesToKubernetesClusterCmd.execute ignores the worker's result), and
// the revert of a skipped VM's rules looks its firewall rule up by exact
// ports with no purpose filter, so it may pick the forward, fail the job and
// leave both rules (KubernetesClusterAddWorker.revertNetworkRules). So the
// engine refuses what would fail before any call, reads the VM map after the
// job to learn what happened whatever its outcome, and deletes what a
// skipped VM left behind.

// Tags the engine puts on the VMs it joins. CloudStack's API does not show
// how an external node was joined (KubernetesUserVmResponse has no
// manual_upgrade), and the upgrade needs it; the cluster's delete needs to
// know which external nodes a configuration manages.
const (
	// TagJoinedCluster names the cluster the VM was joined to by the
	// provider's cks_cluster_node.
	TagJoinedCluster = "cks-cluster-node"
	// TagManualUpgrade is "true" when the VM was joined with manualupgrade:
	// CloudStack's upgrades skip it.
	TagManualUpgrade = "cks-manual-upgrade"
)

// JoinRequest asks to join one VM to a cluster as an external node.
type JoinRequest struct {
	ClusterID     string
	VMID          string
	ManualUpgrade bool
	// MountCKSISOOnVR serves the binaries ISO from the network's virtual
	// router (VMware).
	MountCKSISOOnVR bool
}

// NodeField names what a NodeProblem is about; the caller maps it to its
// own attribute.
type NodeField string

// Node fields.
const (
	FieldCluster NodeField = "cluster"
	FieldVM      NodeField = "vm"
)

// NodeProblem is why a join would fail, found before any change.
type NodeProblem struct {
	Field   NodeField
	Message string
}

// JoinError is a join refused before any change.
type JoinError struct {
	ClusterID, VMID string
	Problems        []NodeProblem
}

func (e *JoinError) Error() string {
	msgs := make([]string, 0, len(e.Problems))
	for _, p := range e.Problems {
		msgs = append(msgs, p.Message)
	}
	return fmt.Sprintf("joining VM %s to Kubernetes cluster %s: %s", e.VMID, e.ClusterID, strings.Join(msgs, "; "))
}

// joinTarget is what CheckJoin read: the cluster with its rules, and the VM.
type joinTarget struct {
	snap *Snapshot
	vm   *cloudstack.VirtualMachine
	port int // the public port CloudStack gives the node
}

// CheckJoin judges a join without changing anything: every problem it
// returns would make CloudStack drop or skip the VM, or fail the job. An
// error means it could not read what it needs.
func (e *Engine) CheckJoin(ctx context.Context, req JoinRequest) ([]NodeProblem, error) {
	_, problems, err := e.checkJoin(ctx, req)
	return problems, err
}

func (e *Engine) checkJoin(ctx context.Context, req JoinRequest) (*joinTarget, []NodeProblem, error) {
	c, err := e.api.GetKubernetesCluster(ctx, req.ClusterID)
	if cloudstack.IsNotFound(err) {
		return nil, []NodeProblem{{FieldCluster, fmt.Sprintf("Kubernetes cluster %s does not exist", req.ClusterID)}}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading Kubernetes cluster %s: %w", req.ClusterID, err)
	}
	vm, err := e.api.GetVirtualMachine(ctx, req.VMID)
	if cloudstack.IsNotFound(err) {
		return nil, []NodeProblem{{FieldVM, fmt.Sprintf("VM %s does not exist", req.VMID)}}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading VM %s: %w", req.VMID, err)
	}
	if p := memberProblem(c, vm); p != nil {
		return nil, []NodeProblem{*p}, nil
	}
	var problems []NodeProblem
	problems = append(problems, clusterJoinProblems(c)...)
	problems = append(problems, vmJoinProblems(c, vm)...)
	if p, err := e.templateProblem(ctx, vm); err != nil {
		return nil, nil, err
	} else if p != nil {
		problems = append(problems, *p)
	}
	if len(problems) > 0 {
		return nil, problems, nil
	}
	s, err := e.snapshotOf(ctx, c, Intent{})
	if err != nil {
		return nil, nil, err
	}
	if s.Direct() {
		return nil, []NodeProblem{{FieldCluster, fmt.Sprintf("Kubernetes cluster %s is on a network without a public IP "+
			"for its nodes' SSH (Shared or Routed): CloudStack cannot add nodes to it (KubernetesClusterActionWorker.getPublicIp "+
			"finds no IP and the job fails)", c.Name)}}, nil
	}
	t := &joinTarget{snap: s, vm: vm, port: e.externalNodePort(ctx, c)}
	if p := portProblem(s, t.port); p != nil {
		return nil, []NodeProblem{*p}, nil
	}
	return t, nil, nil
}

// clusterJoinProblems refuses clusters CloudStack would not join a node to
// safely: it adds nodes from Running (and Alert, which the provider leaves
// to the state scanner first) and from no other state.
func clusterJoinProblems(c *cloudstack.Cluster) []NodeProblem {
	if c.State != clusterstate.Running {
		return []NodeProblem{{FieldCluster, fmt.Sprintf("Kubernetes cluster %s is %s: nodes are joined to a Running cluster "+
			"only (CloudStack moves a cluster to Importing from Running or Alert, and checks the new node's readiness through "+
			"its control node)", c.Name, c.State)}}
	}
	return nil
}

// memberProblem refuses a VM already in the cluster's map, which
// validateNodes drops.
func memberProblem(c *cloudstack.Cluster, vm *cloudstack.VirtualMachine) *NodeProblem {
	for _, v := range clusterview.MapVMs(c) {
		if v.ID != vm.ID {
			continue
		}
		what := "a " + string(v.Role) + " node it made"
		if v.External {
			what = "an external node already; import it instead (terraform import cks_cluster_node.<name> " + c.ID + "/" + vm.ID + ")"
		}
		return &NodeProblem{FieldVM, fmt.Sprintf("VM %s (%s) is in the VM map of cluster %s as %s", vm.Name, vm.ID, c.Name, what)}
	}
	return nil
}

// vmJoinProblems are the VM's own: validateNodes drops a VM whose default
// NIC is in another network, and the node check over SSH fails for a VM
// that does not run.
func vmJoinProblems(c *cloudstack.Cluster, vm *cloudstack.VirtualMachine) []NodeProblem {
	var out []NodeProblem
	if vm.DefaultNetworkID != c.NetworkID {
		out = append(out, NodeProblem{FieldVM, fmt.Sprintf("VM %s (%s) has its default NIC in network %s, not in the "+
			"cluster's network %s: CloudStack adds only VMs whose default NIC is in the cluster's network "+
			"(KubernetesClusterManagerImpl.validateNodes)", vm.Name, vm.ID, vm.DefaultNetworkID, c.NetworkID)})
	}
	if !strings.EqualFold(vm.State, "Running") {
		out = append(out, NodeProblem{FieldVM, fmt.Sprintf("VM %s (%s) is %s: CloudStack checks a new node over SSH through "+
			"its forward and skips a VM that does not answer; start it first", vm.Name, vm.ID, vm.State)})
	}
	return out
}

// templateProblem refuses a VM whose template is not marked for CKS
// (for_cks), which validateNodes drops. A template the caller cannot read
// is no problem: CloudStack will tell.
func (e *Engine) templateProblem(ctx context.Context, vm *cloudstack.VirtualMachine) (*NodeProblem, error) {
	if vm.TemplateID == "" {
		return nil, nil
	}
	t, err := e.api.GetTemplate(ctx, vm.TemplateID)
	switch {
	case cloudstack.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading the template %s of VM %s: %w", vm.TemplateID, vm.ID, err)
	case !t.ForCKS:
		return &NodeProblem{FieldVM, fmt.Sprintf("VM %s (%s) runs template %s (%s), which is not marked for CKS (for_cks): "+
			"CloudStack adds only VMs of such templates (KubernetesClusterManagerImpl.validateNodes)", vm.Name, vm.ID, t.Name, t.ID)}, nil
	}
	return nil, nil
}

// externalNodePort is the public port CloudStack gives the next external
// node: 2222 + C + node_count, etcd nodes left out
// (KubernetesClusterAddWorker.validateAndSetupNode); 4.21 counted them.
func (e *Engine) externalNodePort(ctx context.Context, c *cloudstack.Cluster) int {
	port := rules.NodeSSHStartPort + int(c.ControlNodes+c.Size)
	if v, err := e.cloudStackVersion(ctx); err == nil && clusterview.ExternalPortCountsEtcd(v) {
		port += int(c.EtcdNodes)
	}
	return port
}

// portProblem refuses a join whose port a rule holds: CloudStack's firewall
// rule for it would conflict, and the revert that follows "finds" by the
// exact ports whatever rule has them, a user's included, and revokes it.
// The cluster's own node SSH range does not count: the join settles it
// first (nodeRangeInTheWay).
func portProblem(s *Snapshot, port int) *NodeProblem {
	candidate := rules.Rule{Kind: rules.KindFirewall, Protocol: rules.ProtocolTCP, StartPort: port, EndPort: port,
		CIDRs: []string{rules.AnyCIDR}, IPAddressID: s.PublicIPID, NetworkID: s.Cluster.NetworkID}
	var in []rules.Rule
	if s.Layout.Network == rules.NetworkIsolated {
		in = slices.DeleteFunc(slices.Clone(s.Rules), s.isNodeRange)
	}
	for _, r := range append(slices.Clone(in), s.NetworkForwards...) {
		if r.StartPort == port && (r.EndPort == port || r.EndPort == 0) {
			return &NodeProblem{FieldCluster, fmt.Sprintf("rule %s (%s) has exactly port %d, the one CloudStack gives the new "+
				"node: a failed join's revert would revoke it (KubernetesClusterAddWorker.revertNetworkRules finds the rule by its "+
				"ports alone); move it first", r.ID, s.describeRule(r, rules.PurposeUser), port)}
		}
	}
	if conflict, ok := rules.DetectConflict(in, candidate); ok {
		return &NodeProblem{FieldCluster, fmt.Sprintf("the node's SSH firewall rule on port %d would conflict with rule %s "+
			"(%s %s); move it first", port, conflict.ID, conflict.Kind, rules.PortRange(conflict.StartPort, conflict.EndPort))}
	}
	return nil
}

// isNodeRange tells whether a rule is the cluster's own node SSH range.
func (s *Snapshot) isNodeRange(r rules.Rule) bool {
	cr, ok := s.Classification.Lookup(r.ID)
	return ok && cr.Owned() && cr.Purpose == rules.PurposeNodeSSHRange
}

// nodeRangeInTheWay tells whether the cluster's own node SSH range covers
// the port CloudStack gives the new node: a removal by another client
// leaves the range the provider widened over the node it removed, and
// CloudStack's rule for the new node would conflict with it.
func nodeRangeInTheWay(s *Snapshot, port int) bool {
	for _, r := range s.Rules {
		if s.isNodeRange(r) && r.StartPort <= port && port <= r.EndPort {
			return true
		}
	}
	return false
}

// JoinNode joins a VM to a cluster as an external node, once (an add is
// never sent twice), and reads the VM map to learn whether CloudStack took
// it. A node SSH range the provider widened over a node another client
// removed is brought back to the map first. The VM gets the provider's
// tags, and the cluster's SSH rules their layout again (CloudStack gives the node a single-port rule, which the
// node range then covers), with the CIDRs the node range has. A VM
// CloudStack skipped has its leftover rules deleted and gives an error.
func (e *Engine) JoinNode(ctx context.Context, req JoinRequest) (Report, error) {
	rep := Report{ClusterID: req.ClusterID}
	t, problems, err := e.checkJoin(ctx, req)
	if err != nil {
		return rep, err
	}
	if len(problems) > 0 {
		return rep, &JoinError{ClusterID: req.ClusterID, VMID: req.VMID, Problems: problems}
	}
	if nodeRangeInTheWay(t.snap, t.port) {
		if err := e.settleNodeRules(ctx, &t.snap.Cluster, &rep); err != nil {
			return rep, err
		}
	}
	e.logf(ctx, "joining a VM to the Kubernetes cluster", map[string]any{"cluster_id": req.ClusterID, "vm_id": req.VMID, "port": t.port})
	ref, err := e.api.AddNodesToKubernetesCluster(ctx, cloudstack.AddNodesParams{ClusterID: req.ClusterID,
		VMIDs: []string{req.VMID}, ManualUpgrade: req.ManualUpgrade, MountCKSISOOnVR: req.MountCKSISOOnVR})
	if err == nil {
		_, err = e.wait(ctx, "addNodesToKubernetesCluster", ref.JobID)
	}
	ctx, cancel := detached(ctx)
	defer cancel()
	c, joined, rerr := e.readJoined(ctx, req)
	rep.Cluster = c
	if rerr != nil {
		return rep, errors.Join(err, rerr)
	}
	if !joined {
		return rep, e.failedJoin(ctx, t, c, err, &rep)
	}
	e.step(ctx, &rep, StepNote, fmt.Sprintf("joined VM %s (%s) to cluster %s as an external node on SSH port %d",
		t.vm.Name, t.vm.ID, c.Name, t.port))
	var errs []error
	if err := e.tagJoined(ctx, req); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, e.settleNodeRules(ctx, c, &rep))
	return rep, errors.Join(errs...)
}

// readJoined reads the cluster after an add and tells whether the VM is in
// its map as an external node.
func (e *Engine) readJoined(ctx context.Context, req JoinRequest) (*cloudstack.Cluster, bool, error) {
	c, err := e.api.GetKubernetesCluster(ctx, req.ClusterID)
	if err != nil {
		return nil, false, fmt.Errorf("reading Kubernetes cluster %s after the join: %w", req.ClusterID, err)
	}
	_, external := mapMembership(c, req.VMID)
	return c, external, nil
}

// failedJoin deletes the rules a skipped VM kept on its port (CloudStack's
// revert may leave the firewall rule and the forward when it picks the
// forward as "the" firewall rule) and says why the VM is not a node.
func (e *Engine) failedJoin(ctx context.Context, t *joinTarget, c *cloudstack.Cluster, jobErr error, rep *Report) error {
	why := "CloudStack's node check over SSH through the node's forward failed (the VM does not answer, or lacks what the " +
		"node check script needs) and it skipped the VM"
	if jobErr != nil {
		why = fmt.Sprintf("the job failed: %v", jobErr)
	}
	now, err := e.rulesOnIP(ctx, t.snap.projectID(), t.snap.PublicIPID)
	if err != nil {
		return fmt.Errorf("VM %s was not joined to cluster %s (%s), and its rules could not be checked: %w", t.vm.ID, c.Name, why, err)
	}
	var errs []error
	for _, r := range now {
		leftover := r.StartPort == t.port && (r.EndPort == t.port || r.EndPort == 0) &&
			((r.Kind == rules.KindPortForward && r.VMID == t.vm.ID) || (r.Kind == rules.KindFirewall && !slices.ContainsFunc(t.snap.Rules, sameID(r))))
		if !leftover {
			continue
		}
		if err := e.deleteRule(ctx, t.snap, r); err != nil {
			errs = append(errs, fmt.Errorf("deleting rule %s, which the failed join left on port %d: %w", r.ID, t.port, err))
			continue
		}
		st := e.step(ctx, rep, StepRemoved, fmt.Sprintf("deleted %s (rule %s), which the failed join left behind",
			t.snap.describeRule(r, rules.PurposeUser), r.ID))
		st.PreviousRuleID = r.ID
	}
	return errors.Join(append([]error{fmt.Errorf("VM %s (%s) was not joined to Kubernetes cluster %s: %s", t.vm.Name, t.vm.ID, c.Name, why)}, errs...)...)
}

func sameID(r rules.Rule) func(rules.Rule) bool {
	return func(x rules.Rule) bool { return x.ID == r.ID }
}

// tagJoined records on the VM which cluster the provider joined it to and
// whether its upgrades are manual, replacing the tags an earlier join left.
func (e *Engine) tagJoined(ctx context.Context, req JoinRequest) error {
	if err := e.untag(ctx, req.VMID); err != nil {
		return err
	}
	tags := map[string]string{TagJoinedCluster: req.ClusterID, TagManualUpgrade: fmt.Sprint(req.ManualUpgrade)}
	ref, err := e.api.TagVirtualMachine(ctx, req.VMID, tags)
	if err == nil {
		_, err = e.wait(ctx, "createTags", ref.JobID)
	}
	if err != nil {
		return fmt.Errorf("tagging VM %s as joined (%s, %s): %w", req.VMID, TagJoinedCluster, TagManualUpgrade, err)
	}
	return nil
}

// settleNodeRules brings the cluster's SSH rules to the provider's layout
// after a join or a removal, keeping the CIDRs its node range has: the
// node's owner does not know the cluster's ssh_cidrs, and the cluster's own
// configuration keeps them.
func (e *Engine) settleNodeRules(ctx context.Context, c *cloudstack.Cluster, rep *Report) error {
	s, err := e.snapshotOf(ctx, c, Intent{})
	if err != nil {
		return fmt.Errorf("reading the rules of cluster %s: %w", c.ID, err)
	}
	if s.Direct() {
		return nil
	}
	if cidrs := nodeRangeCIDRs(s); len(cidrs) > 0 {
		s, err = e.snapshotOf(ctx, c, Intent{SourceCIDRs: rules.SourceCIDRs{SSHCIDRs: cidrs}, Network: s.Layout.Network})
		if err != nil {
			return fmt.Errorf("reading the rules of cluster %s: %w", c.ID, err)
		}
	}
	rep.Final = s
	if err := e.applySync(ctx, s, s.Sync, rep); err != nil {
		return fmt.Errorf("bringing the SSH rules of cluster %s to the provider's layout: %w", c.ID, err)
	}
	return nil
}

// nodeRangeCIDRs are the source CIDRs of the cluster's node SSH range when
// they are narrower than 0.0.0.0/0, else nil.
func nodeRangeCIDRs(s *Snapshot) []string {
	for _, r := range s.Rules {
		if r.Kind == rules.KindFirewall && r.StartPort == rules.NodeSSHStartPort && r.EndPort < rules.APIPort {
			if len(r.CIDRs) == 1 && r.CIDRs[0] == rules.AnyCIDR {
				return nil
			}
			return slices.Clone(r.CIDRs)
		}
	}
	return nil
}
