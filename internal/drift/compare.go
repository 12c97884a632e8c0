package drift

import (
	"fmt"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// VM states the comparison cares about, as CloudStack writes them
// (com.cloud.vm.VirtualMachine.State).
const (
	vmRunning   = "Running"
	vmStopped   = "Stopped"
	vmDestroyed = "Destroyed"
	vmExpunging = "Expunging"
	vmError     = "Error"

	externalManaged = "ExternalManaged"
)

// Compare checks the cluster and returns its findings. Clusters that are not
// in a steady state (Running, Stopped, Alert) and ExternalManaged clusters
// are skipped: an operation in progress changes the map, VMs and rules
// legitimately.
func Compare(in Input) Result {
	res := Result{ClusterState: in.Cluster.State, KubernetesVersion: in.Cluster.KubernetesVersion}
	if reason := skipReason(in.Cluster); reason != "" {
		res.Skipped = true
		res.SkipReason = reason
		res.Counts = countFindings(nil)
		res.Summary = "skipped: " + reason
		return res
	}

	c := newComparison(in)
	c.compareMap()
	c.compareOfferings()
	c.compareUnmapped()
	res.NodesChecked, res.NodeCheckError = c.compareNodes()
	if res.NodeCheckError != "" {
		res.Incomplete = append(res.Incomplete, IncompleteView{View: ViewNodes, Reason: res.NodeCheckError})
	}
	c.compareVersions()
	c.compareSize()
	if reason := c.compareRules(); reason != "" {
		res.Incomplete = append(res.Incomplete, IncompleteView{View: ViewNetworkRules, Reason: reason})
	}
	c.compareState(res.NodesChecked)

	sortFindings(c.findings)
	res.Findings = c.findings
	res.Counts = countFindings(c.findings)
	// Fail closed: a view that was asked for and not compared may hide drift.
	res.InSync = len(c.findings) == 0 && len(res.Incomplete) == 0
	res.Summary = Summarize(res)
	return res
}

func skipReason(cl Cluster) string {
	if strings.EqualFold(cl.ClusterType, externalManaged) {
		return "cluster is ExternalManaged: CKS does not manage its VMs"
	}
	switch {
	case clusterstate.Steady(cl.State):
		return ""
	case cl.State == "":
		return "cluster state is unknown"
	}
	return fmt.Sprintf("cluster is %s, not in a steady state (Running, Stopped or Alert)", cl.State)
}

// vmRef is a VM the comparison knows by id, with its role.
type vmRef struct {
	id          string
	name        string
	state       string
	created     time.Time
	listed      bool
	etcd        bool
	external    bool
	role        naming.Role
	nodeVersion string // the map's kubernetesnodeversion
	offeringID  string
}

func (v vmRef) label() string {
	what := "VM"
	if v.external {
		what = "external node VM"
	}
	switch {
	case v.name != "" && v.state != "":
		return fmt.Sprintf("%s %s (%s, %s)", what, v.name, v.id, v.state)
	case v.name != "":
		return fmt.Sprintf("%s %s (%s)", what, v.name, v.id)
	}
	return what + " " + v.id
}

type comparison struct {
	in       Input
	now      time.Time
	matcher  *naming.Matcher
	vms      map[string]VM
	mapped   []vmRef // distinct map rows, in map order
	inMap    map[string]bool
	unmapped []vmRef // VMs named as this cluster's nodes and in no map
	// nodeOf is the Kubernetes node paired with each VM, by VM id, once
	// the nodes were compared.
	nodeOf   map[string]Node
	findings []Finding
}

func newComparison(in Input) *comparison {
	c := &comparison{
		in:      in,
		now:     in.Now,
		matcher: naming.NewMatcher(in.Cluster.Name, in.Cluster.ID),
		vms:     map[string]VM{},
		inMap:   map[string]bool{},
		nodeOf:  map[string]Node{},
	}
	if c.now.IsZero() {
		c.now = time.Now()
	}
	for _, vm := range in.VMs {
		c.vms[vm.ID] = vm
	}
	for _, row := range in.Map {
		if c.inMap[row.ID] {
			continue // a duplicated map row is one VM
		}
		c.inMap[row.ID] = true
		c.mapped = append(c.mapped, c.mappedRef(row))
	}
	c.unmapped = c.findUnmapped()
	return c
}

func (c *comparison) mappedRef(row MappedVM) vmRef {
	ref := vmRef{id: row.ID, name: row.Name, etcd: row.IsEtcd, external: row.IsExternal,
		nodeVersion: row.NodeVersion, offeringID: row.OfferingID}
	if vm, ok := c.vms[row.ID]; ok {
		ref.listed = true
		ref.state = vm.State
		ref.created = vm.Created
		if ref.name == "" {
			ref.name = vm.Name
		}
	}
	ref.role = c.roleOf(ref.name)
	// cloudstack-go drops isetcdnode; the etcd name of this cluster is proof too.
	if ref.role == naming.RoleEtcd {
		ref.etcd = true
	}
	return ref
}

// roleOf tells a VM's role by this cluster's naming, then by the generic one.
func (c *comparison) roleOf(name string) naming.Role {
	if role, ok := c.matcher.Role(name); ok {
		return role
	}
	if role, ok := naming.RoleOf(name); ok {
		return role
	}
	return ""
}

func (c *comparison) findUnmapped() []vmRef {
	var out []vmRef
	for _, vm := range c.in.VMs {
		if c.inMap[vm.ID] || c.in.MappedElsewhere[vm.ID] != "" || isGone(vm.State) {
			continue
		}
		role, ok := c.matcher.Role(vm.Name)
		if !ok {
			continue
		}
		out = append(out, vmRef{id: vm.ID, name: vm.Name, state: vm.State, created: vm.Created, listed: true,
			etcd: role == naming.RoleEtcd, role: role})
	}
	return out
}

// pastGrace tells whether a VM is old enough to be reported. An unknown
// creation time counts as old: hiding drift is worse than an early report.
func (c *comparison) pastGrace(created time.Time) bool {
	return created.IsZero() || c.now.Sub(created) > c.in.GracePeriod
}

func (c *comparison) add(f Finding) { c.findings = append(c.findings, f) }

func (c *comparison) clusterRunning() bool {
	return c.in.Cluster.State == clusterstate.Running
}

func (c *comparison) clusterStopped() bool {
	return c.in.Cluster.State == clusterstate.Stopped
}

func isGone(state string) bool {
	return state == vmDestroyed || state == vmExpunging || state == vmError
}
