package drift

import (
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// DefaultGracePeriod is how long a new VM may stay unmapped or not joined
// as a node before it is reported, as in the CloudStack drift check.
const DefaultGracePeriod = 15 * time.Minute

// Cluster is the cluster as listKubernetesClusters reports it.
type Cluster struct {
	ID           string
	Name         string
	State        string
	ClusterType  string
	Size         int
	ControlNodes int
	EtcdNodes    int
	// KubernetesVersion is the semantic version of the cluster's
	// Kubernetes version, "" when unknown.
	KubernetesVersion string
	// ServiceOfferingID is the cluster's service offering, the one of
	// every role that has no offering of its own.
	ServiceOfferingID string
	// RoleOfferingIDs are the role offerings it records (controlofferingid,
	// workerofferingid, etcdofferingid); a missing role uses
	// ServiceOfferingID.
	RoleOfferingIDs map[naming.Role]string
	// OfferingNames names the offerings by id, for messages.
	OfferingNames map[string]string
}

// MappedVM is one row of the cluster's VM map (its virtualmachines list).
type MappedVM struct {
	ID         string
	Name       string
	IsEtcd     bool
	IsExternal bool
	// NodeVersion is the Kubernetes version the map records for the VM
	// (kubernetesnodeversion), "" when the server reports none.
	NodeVersion string
	// OfferingID is the VM's service offering (serviceofferingid).
	OfferingID string
}

// VM is one VM of the cluster owner, as listVirtualMachines reports it.
type VM struct {
	ID      string
	Name    string
	State   string
	Created time.Time
}

// Node is one Kubernetes node.
type Node struct {
	Name  string
	Ready bool
	// Version is the kubelet's version (status.nodeInfo.kubeletVersion),
	// e.g. "v1.33.13"; "" when unknown.
	Version string
}

// NodeView is the result of listing the Kubernetes nodes.
type NodeView struct {
	Nodes []Node
	// Err is set when the nodes could not be listed; the VM comparison
	// still runs.
	Err error
}

// RulesView is the SSH network rule state to compare with the VM map.
type RulesView struct {
	// Err is set when the rules were asked for but the view could not be
	// built (for example the cluster's network is not visible); nothing
	// else is read then, and the check is incomplete.
	Err error
	// Layout carries the SSH CIDRs the provider keeps, which decide which
	// SSH firewall rules are CKS's.
	Layout rules.Layout
	// Rules are the rules on the cluster's public IP, each kind in the
	// order CloudStack listed it.
	Rules []rules.Rule
	// NetworkForwards are the port forwards of the whole network.
	NetworkForwards []rules.Rule
	// LoadBalancersListed tells whether Rules include the IP's load
	// balancer rules (a missing API load balancer is reported only then).
	LoadBalancersListed bool
	// Server says which version-dependent hazards apply.
	Server rules.Server
	// ACL is a VPC tier's network ACL list with its items; nil on other
	// networks, or when the tier names no list.
	ACL *rules.TierACL
}

// Firewalls returns the firewall rules in the order CloudStack listed them.
func (v RulesView) Firewalls() []rules.Rule {
	var out []rules.Rule
	for _, r := range v.Rules {
		if r.Kind == rules.KindFirewall {
			out = append(out, r)
		}
	}
	return out
}

// Input is everything Compare looks at.
type Input struct {
	Cluster Cluster
	Map     []MappedVM
	VMs     []VM
	// MappedElsewhere maps the ids of VMs in other clusters' maps to the
	// id of that cluster.
	MappedElsewhere map[string]string
	// Nodes is nil when nodes are not checked (node_source = none). A view
	// with Err makes the check incomplete, so never in sync.
	Nodes *NodeView
	// Rules is nil when rules are not checked, or when the cluster's network
	// has no CKS rules to check (shared and routed networks).
	Rules *RulesView
	// Now is the time of the check; zero means time.Now().
	Now         time.Time
	GracePeriod time.Duration
}
