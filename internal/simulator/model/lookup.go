package model

import "strings"

// Lookups by UUID. Callers hold the simulator's lock.

// firstWhere returns the first item that matches, or nil.
func firstWhere[T any](items []*T, match func(*T) bool) *T {
	for _, it := range items {
		if match(it) {
			return it
		}
	}
	return nil
}

// AllWhere returns the items that match, in order.
func AllWhere[T any](items []*T, match func(*T) bool) []*T {
	var out []*T
	for _, it := range items {
		if match(it) {
			out = append(out, it)
		}
	}
	return out
}

func findByID[T any](items []*T, id string, idOf func(*T) string) *T {
	return firstWhere(items, func(it *T) bool { return strings.EqualFold(idOf(it), id) })
}

func (st *DB) Domain(id string) *Domain {
	return findByID(st.Domains, id, func(d *Domain) string { return d.ID })
}

func (st *DB) Account(id string) *Account {
	return findByID(st.Accounts, id, func(a *Account) string { return a.ID })
}

func (st *DB) Project(id string) *Project {
	return findByID(st.Projects, id, func(p *Project) string { return p.ID })
}

func (st *DB) ProjectOfAccount(accountID string) *Project {
	return firstWhere(st.Projects, func(p *Project) bool { return p.AccountID == accountID })
}

func (st *DB) AccountByName(name, domainID string) *Account {
	return firstWhere(st.Accounts, func(a *Account) bool {
		return strings.EqualFold(a.Name, name) && (domainID == "" || a.DomainID == domainID)
	})
}

func (st *DB) UserOfAccount(accountID string) *User {
	return firstWhere(st.Users, func(u *User) bool { return u.AccountID == accountID })
}

func (st *DB) Zone(id string) *Zone {
	return findByID(st.Zones, id, func(z *Zone) string { return z.ID })
}

func (st *DB) Offering(id string) *ServiceOffering {
	return findByID(st.Offerings, id, func(o *ServiceOffering) string { return o.ID })
}

func (st *DB) Template(id string) *Template {
	return findByID(st.Templates, id, func(t *Template) string { return t.ID })
}

func (st *DB) UserDataByID(id string) *UserData {
	if u := st.userDataIncludingRemoved(id); u != nil && !u.Removed {
		return u
	}
	return nil
}

func (st *DB) userDataIncludingRemoved(id string) *UserData {
	return findByID(st.UserData, id, func(u *UserData) string { return u.ID })
}

func (st *DB) Version(id string) *KubernetesVersion {
	if v := findByID(st.Versions, id, func(v *KubernetesVersion) string { return v.ID }); v != nil && !v.Removed {
		return v
	}
	return nil
}

func (st *DB) NetOffering(id string) *NetworkOffering {
	return findByID(st.NetOffers, id, func(o *NetworkOffering) string { return o.ID })
}

func (st *DB) ACL(id string) *NetworkACL {
	return findByID(st.ACLs, id, func(a *NetworkACL) string { return a.ID })
}

func (st *DB) VPC(id string) *VPC {
	return findByID(st.VPCs, id, func(v *VPC) string { return v.ID })
}

// Network finds a network, removed ones included.
func (st *DB) Network(id string) *Network {
	return findByID(st.Networks, id, func(n *Network) string { return n.ID })
}

// IP finds a public IP, released ones included.
func (st *DB) IP(id string) *PublicIP {
	return findByID(st.IPs, id, func(p *PublicIP) string { return p.ID })
}

// VM finds a VM that has not been expunged.
func (st *DB) VM(id string) *VM {
	v := st.VMIncludingExpunged(id)
	if v == nil || v.Expunged {
		return nil
	}
	return v
}

func (st *DB) VMIncludingExpunged(id string) *VM {
	return st.VMByID[strings.ToLower(id)]
}

// Cluster finds a cluster, removed ones included (UUID lookups include
// removed rows).
func (st *DB) Cluster(id string) *Cluster {
	return findByID(st.Clusters, id, func(c *Cluster) string { return c.ID })
}

func (st *DB) Rule(id string) *Rule {
	return findByID(st.Rules, id, func(r *Rule) string { return r.ID })
}

// RuleLookup finds rules of one purpose only, for resolveParam.
func (st *DB) RuleLookup(purpose string) func(id string) *Rule {
	return func(id string) *Rule {
		if r := st.Rule(id); r != nil && r.Purpose == purpose {
			return r
		}
		return nil
	}
}

func (st *DB) Job(id string) *Job {
	return findByID(st.Jobs, id, func(j *Job) string { return j.ID })
}

func (st *DB) KeypairFor(accountID, name string) *KeyPair {
	return firstWhere(st.Keypairs, func(k *KeyPair) bool { return k.AccountID == accountID && k.Name == name })
}

// MapRows returns a cluster's VM map rows in map-id order.
func (st *DB) MapRows(clusterID string) []*MapRow {
	return AllWhere(st.VMMap, func(r *MapRow) bool { return r.ClusterID == clusterID })
}

// MapRowOf returns the map row of a VM in any cluster.
func (st *DB) MapRowOf(vmID string) *MapRow {
	return firstWhere(st.VMMap, func(r *MapRow) bool { return r.VMID == vmID })
}

// SourceNatIP returns the network's source NAT IP (the first one).
func (st *DB) SourceNatIP(networkID string) *PublicIP {
	return firstWhere(st.IPs, func(p *PublicIP) bool { return !p.Released && p.NetworkID == networkID && p.SourceNat })
}

// ClusterOnNetwork returns a non-removed cluster that uses the network.
func (st *DB) ClusterOnNetwork(networkID string) *Cluster {
	return firstWhere(st.Clusters, func(c *Cluster) bool { return !c.Removed && c.NetworkID == networkID })
}

// NodesOf returns a cluster's registered Kubernetes nodes.
func (st *DB) NodesOf(clusterID string) []*KubeNode {
	return AllWhere(st.Nodes, func(n *KubeNode) bool { return n.ClusterID == clusterID })
}

func (st *DB) NodeOfVM(vmID string) *KubeNode {
	return firstWhere(st.Nodes, func(n *KubeNode) bool { return n.VMID == vmID })
}

// NodeByName returns a cluster's Kubernetes node of that name.
func (st *DB) NodeByName(clusterID, name string) *KubeNode {
	return firstWhere(st.Nodes, func(n *KubeNode) bool { return n.ClusterID == clusterID && n.Name == name })
}

// NextID returns the next internal numeric id of a table.
func (st *DB) NextID(table string) int64 {
	st.Seq[table]++
	return st.Seq[table]
}
