package simulator

import "strings"

// Lookups by UUID. Callers hold s.mu.

// firstWhere returns the first item that matches, or nil.
func firstWhere[T any](items []*T, match func(*T) bool) *T {
	for _, it := range items {
		if match(it) {
			return it
		}
	}
	return nil
}

// allWhere returns the items that match, in order.
func allWhere[T any](items []*T, match func(*T) bool) []*T {
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

func (st *state) domain(id string) *domain {
	return findByID(st.domains, id, func(d *domain) string { return d.id })
}

func (st *state) account(id string) *account {
	return findByID(st.accounts, id, func(a *account) string { return a.id })
}

func (st *state) project(id string) *project {
	return findByID(st.projects, id, func(p *project) string { return p.id })
}

func (st *state) projectOfAccount(accountID string) *project {
	return firstWhere(st.projects, func(p *project) bool { return p.accountID == accountID })
}

func (st *state) accountByName(name, domainID string) *account {
	return firstWhere(st.accounts, func(a *account) bool {
		return strings.EqualFold(a.name, name) && (domainID == "" || a.domainID == domainID)
	})
}

func (st *state) userOfAccount(accountID string) *user {
	return firstWhere(st.users, func(u *user) bool { return u.accountID == accountID })
}

func (st *state) zone(id string) *zone {
	return findByID(st.zones, id, func(z *zone) string { return z.id })
}

func (st *state) offering(id string) *serviceOffering {
	return findByID(st.offerings, id, func(o *serviceOffering) string { return o.id })
}

func (st *state) template(id string) *template {
	return findByID(st.templates, id, func(t *template) string { return t.id })
}

func (st *state) userDataByID(id string) *userData {
	if u := st.userDataIncludingRemoved(id); u != nil && !u.removed {
		return u
	}
	return nil
}

func (st *state) userDataIncludingRemoved(id string) *userData {
	return findByID(st.userData, id, func(u *userData) string { return u.id })
}

func (st *state) version(id string) *k8sVersion {
	if v := findByID(st.versions, id, func(v *k8sVersion) string { return v.id }); v != nil && !v.removed {
		return v
	}
	return nil
}

func (st *state) netOffering(id string) *networkOffering {
	return findByID(st.netOffers, id, func(o *networkOffering) string { return o.id })
}

func (st *state) acl(id string) *networkACL {
	return findByID(st.acls, id, func(a *networkACL) string { return a.id })
}

func (st *state) vpc(id string) *vpc {
	return findByID(st.vpcs, id, func(v *vpc) string { return v.id })
}

// network finds a network, removed ones included.
func (st *state) network(id string) *network {
	return findByID(st.networks, id, func(n *network) string { return n.id })
}

// ip finds a public IP, released ones included.
func (st *state) ip(id string) *publicIP {
	return findByID(st.ips, id, func(p *publicIP) string { return p.id })
}

// vm finds a VM that has not been expunged.
func (st *state) vm(id string) *vm {
	v := st.vmIncludingExpunged(id)
	if v == nil || v.expunged {
		return nil
	}
	return v
}

func (st *state) vmIncludingExpunged(id string) *vm {
	return st.vmByID[strings.ToLower(id)]
}

// cluster finds a cluster, removed ones included (UUID lookups include
// removed rows).
func (st *state) cluster(id string) *cluster {
	return findByID(st.clusters, id, func(c *cluster) string { return c.id })
}

func (st *state) rule(id string) *rule {
	return findByID(st.rules, id, func(r *rule) string { return r.id })
}

// ruleLookup finds rules of one purpose only, for resolveParam.
func (st *state) ruleLookup(purpose string) func(id string) *rule {
	return func(id string) *rule {
		if r := st.rule(id); r != nil && r.purpose == purpose {
			return r
		}
		return nil
	}
}

func (st *state) job(id string) *job {
	return findByID(st.jobs, id, func(j *job) string { return j.id })
}

func (st *state) keypairFor(accountID, name string) *keyPair {
	return firstWhere(st.keypairs, func(k *keyPair) bool { return k.accountID == accountID && k.name == name })
}

// mapRows returns a cluster's VM map rows in map-id order.
func (st *state) mapRows(clusterID string) []*mapRow {
	return allWhere(st.vmMap, func(r *mapRow) bool { return r.clusterID == clusterID })
}

// mapRowOf returns the map row of a VM in any cluster.
func (st *state) mapRowOf(vmID string) *mapRow {
	return firstWhere(st.vmMap, func(r *mapRow) bool { return r.vmID == vmID })
}

// sourceNatIP returns the network's source NAT IP (the first one).
func (st *state) sourceNatIP(networkID string) *publicIP {
	return firstWhere(st.ips, func(p *publicIP) bool { return !p.released && p.networkID == networkID && p.sourceNat })
}

// clusterOnNetwork returns a non-removed cluster that uses the network.
func (st *state) clusterOnNetwork(networkID string) *cluster {
	return firstWhere(st.clusters, func(c *cluster) bool { return !c.removed && c.networkID == networkID })
}

// nodesOf returns a cluster's registered Kubernetes nodes.
func (st *state) nodesOf(clusterID string) []*kubeNode {
	return allWhere(st.nodes, func(n *kubeNode) bool { return n.clusterID == clusterID })
}

func (st *state) nodeOfVM(vmID string) *kubeNode {
	return firstWhere(st.nodes, func(n *kubeNode) bool { return n.vmID == vmID })
}

// nodeByName returns a cluster's Kubernetes node of that name.
func (st *state) nodeByName(clusterID, name string) *kubeNode {
	return firstWhere(st.nodes, func(n *kubeNode) bool { return n.clusterID == clusterID && n.name == name })
}

// nextID returns the next internal numeric id of a table.
func (st *state) nextID(table string) int64 {
	st.seq[table]++
	return st.seq[table]
}
