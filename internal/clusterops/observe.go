package clusterops

import (
	"context"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// Observation is a cluster as the provider records it: CloudStack's view
// plus what the engine derives from the rules.
type Observation struct {
	Cluster cloudstack.Cluster
	Network rules.NetworkKind
	// EtcdStartPort is the etcd SSH start port read from the etcd forwards
	// (the configured one when there is none).
	EtcdStartPort int
	// RulesRead tells whether the rules were read; RulesInSync and Sync
	// mean something only then.
	RulesRead   bool
	RulesInSync bool
	// Sync is what an apply would change in the rules.
	Sync rules.Plan
	// Inconsistency is the VM map's disagreement with the size, or nil.
	Inconsistency *vmmap.Inconsistency
	// RulesErr is why the rules could not be read, when they could not.
	RulesErr error
	// NetworkGuessed is set when the network could not be read and Network
	// comes from the cluster's own fields.
	NetworkGuessed bool
	// Stuck is set for a cluster CloudStack left mid-operation, with no
	// job of it running (see StuckError).
	Stuck *StuckError
	// OwnedCIDRs are the CIDR lists (rules.NormalCIDRs) of the firewall
	// rules the layout counts as CKS's, once each, when the rules were read:
	// the lists a caller must go on knowing as the cluster's.
	OwnedCIDRs [][]string
	// Exposures are rules of others that open a narrowed port wider than
	// the configured CIDRs (rules.Exposures), when the rules were read.
	Exposures []rules.Exposure
	// ports are the SSH ports the forwards really give each VM.
	ports map[string]int
	// etcdFirewall: a firewall rule opens the etcd nodes' SSH ports (the
	// etcd SSH range, or CKS's single-port rules).
	etcdFirewall bool
	// sshACLMissing: the VPC tier's network ACL lets no SSH in (CKS's item
	// for 22 is gone).
	sshACLMissing bool
}

// Nodes returns the VM map with roles and SSH ports: the port each node's
// forward really has when the rules were read, else the one CKS gives.
func (o *Observation) Nodes() []Node {
	return nodesWithPorts(&o.Cluster, o.Network, o.EtcdStartPort, o.ports)
}

// Observe reads a cluster and, in a steady state on a network with CKS
// rules, its rules: three calls (four the first time, to learn the network
// kind). A failure to read the rules is recorded in the observation, not
// returned: the cluster itself was read.
func (e *Engine) Observe(ctx context.Context, clusterID string, in Intent) (*Observation, error) {
	c, err := e.api.GetKubernetesCluster(ctx, clusterID)
	if err != nil {
		return nil, err
	}
	return e.observe(ctx, c, in)
}

// ObserveCluster is Observe for a cluster already read (found by name, for
// instance).
func (e *Engine) ObserveCluster(ctx context.Context, c *cloudstack.Cluster, in Intent) *Observation {
	o, _ := e.observe(ctx, c, in)
	return o
}

func (e *Engine) observe(ctx context.Context, c *cloudstack.Cluster, in Intent) (*Observation, error) {
	o := &Observation{Cluster: *c, Network: in.Network, EtcdStartPort: e.opts.EtcdSSHStartPort, Inconsistency: InconsistentMap(c)}
	o.readRules(ctx, e, in)
	if stuck, err := e.Stuck(ctx, c); err == nil && stuck {
		o.Stuck = &StuckError{ClusterID: c.ID, State: c.State}
	}
	return o, nil
}

// readRules learns the network kind when it is not known and, in a steady
// state, reads the rules; a failure is recorded in RulesErr, because the
// cluster itself was read.
func (o *Observation) readRules(ctx context.Context, e *Engine, in Intent) {
	c := &o.Cluster
	if o.Network == "" {
		kind, err := NetworkKindOf(ctx, e.api, c)
		if err != nil {
			o.RulesErr = err
			o.Network, o.NetworkGuessed = clusterview.NetworkKind(c, nil), true
			return
		}
		o.Network = kind
	}
	if !clusterstate.Steady(c.State) {
		return // mid-operation the rules are in flux
	}
	in.Network = o.Network
	s, err := e.snapshotOf(ctx, c, in)
	if err != nil {
		o.RulesErr = err
		return
	}
	o.fromSnapshot(s)
}

// fromSnapshot takes the rule verdict of a snapshot.
func (o *Observation) fromSnapshot(s *Snapshot) {
	o.Network = s.Layout.Network
	o.RulesRead = true
	o.ports = map[string]int{}
	for _, n := range s.Layout.Nodes {
		if port, ok := s.Classification.ForwardPort(n.ID); ok {
			o.ports[n.ID] = port
		}
	}
	o.RulesInSync = s.InSync()
	o.Sync = s.Sync
	o.OwnedCIDRs = ownedCIDRs(s.Classification)
	o.Exposures = rules.Exposures(s.Layout, s.Classification)
	o.etcdFirewall = slices.ContainsFunc(s.Classification.Rules, func(cr rules.ClassifiedRule) bool {
		return cr.Purpose == rules.PurposeEtcdFirewall || cr.Purpose == rules.PurposeEtcdSSHRange
	})
	o.sshACLMissing = slices.ContainsFunc(s.ACLClassification.Missing, func(e rules.ACLExpectation) bool {
		return e.Purpose == rules.PurposeSSHACL
	})
	if s.Layout.EtcdStartPort > 0 {
		o.EtcdStartPort = s.Layout.EtcdStartPort
	}
}

// ownedCIDRs are the CIDR lists of the classification's CKS firewall rules,
// once each.
func ownedCIDRs(c rules.Classification) [][]string {
	var out [][]string
	for _, cr := range c.Rules {
		if !cr.Owned() || cr.Rule.Kind != rules.KindFirewall {
			continue
		}
		list := rules.NormalCIDRs(cr.Rule.CIDRs)
		if !slices.ContainsFunc(out, func(l []string) bool { return slices.Equal(l, list) }) {
			out = append(out, list)
		}
	}
	return out
}

// ObservationOf is the observation of a snapshot the engine already holds.
func ObservationOf(s *Snapshot) *Observation {
	o := &Observation{Cluster: s.Cluster, Network: s.Layout.Network, EtcdStartPort: s.Layout.EtcdStartPort,
		Inconsistency: InconsistentMap(&s.Cluster)}
	o.fromSnapshot(s)
	return o
}

// ClosedSSH names the nodes whose SSH path is closed, as read: a node
// without its forward, or whose firewall range (the node SSH range, or the
// etcd SSH range and CKS's single etcd rules) is missing. Empty when the
// rules were not read or every path is open.
func (o *Observation) ClosedSSH() []string {
	if !o.RulesRead {
		return nil
	}
	closed := map[string]bool{}
	missing := func(e rules.Expectation) {
		switch e.Purpose {
		case rules.PurposeNodeSSHForward, rules.PurposeEtcdForward:
			closed[e.VMID] = true
		case rules.PurposeNodeSSHRange:
			for _, n := range o.Nodes() {
				closed[n.ID] = closed[n.ID] || n.Role != naming.RoleEtcd
			}
		case rules.PurposeEtcdSSHRange:
			if !o.etcdFirewall {
				for _, n := range o.Nodes() {
					closed[n.ID] = closed[n.ID] || n.Role == naming.RoleEtcd
				}
			}
		}
	}
	for _, a := range o.Sync.Actions() {
		if a.Op == rules.OpCreate {
			missing(rules.Expectation{Purpose: a.Purpose, VMID: a.Rule.VMID})
		}
	}
	for _, n := range o.Nodes() {
		// Without the VPC tier's ACL item for 22 no forward leads in.
		closed[n.ID] = closed[n.ID] || o.sshACLMissing
	}
	for _, b := range o.Sync.Blocked {
		missing(b.Expectation)
	}
	var out []string
	for _, n := range o.Nodes() {
		if closed[n.ID] {
			out = append(out, n.Name)
		}
	}
	slices.Sort(out)
	return out
}
