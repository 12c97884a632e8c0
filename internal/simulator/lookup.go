package simulator

import "strings"

// Lookups by UUID. Callers hold s.mu.

func findByID[T any](items []*T, id string, idOf func(*T) string) *T {
	for _, it := range items {
		if strings.EqualFold(idOf(it), id) {
			return it
		}
	}
	return nil
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
	for _, p := range st.projects {
		if p.accountID == accountID {
			return p
		}
	}
	return nil
}

func (st *state) accountByName(name, domainID string) *account {
	for _, a := range st.accounts {
		if strings.EqualFold(a.name, name) && (domainID == "" || a.domainID == domainID) {
			return a
		}
	}
	return nil
}

func (st *state) userOfAccount(accountID string) *user {
	for _, u := range st.users {
		if u.accountID == accountID {
			return u
		}
	}
	return nil
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

func (st *state) version(id string) *k8sVersion {
	return findByID(st.versions, id, func(v *k8sVersion) string { return v.id })
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

func (st *state) job(id string) *job {
	return findByID(st.jobs, id, func(j *job) string { return j.id })
}

func (st *state) keypairFor(accountID, name string) *keyPair {
	for _, k := range st.keypairs {
		if k.accountID == accountID && k.name == name {
			return k
		}
	}
	return nil
}

// mapRows returns a cluster's VM map rows in map-id order.
func (st *state) mapRows(clusterID string) []*mapRow {
	var rows []*mapRow
	for _, r := range st.vmMap {
		if r.clusterID == clusterID {
			rows = append(rows, r)
		}
	}
	return rows
}

// mapRowOf returns the map row of a VM in any cluster.
func (st *state) mapRowOf(vmID string) *mapRow {
	for _, r := range st.vmMap {
		if r.vmID == vmID {
			return r
		}
	}
	return nil
}

// sourceNatIP returns the network's source NAT IP (the first one).
func (st *state) sourceNatIP(networkID string) *publicIP {
	for _, p := range st.ips {
		if !p.released && p.networkID == networkID && p.sourceNat {
			return p
		}
	}
	return nil
}

// clusterOnNetwork returns a non-removed cluster that uses the network.
func (st *state) clusterOnNetwork(networkID string) *cluster {
	for _, c := range st.clusters {
		if !c.removed && c.networkID == networkID {
			return c
		}
	}
	return nil
}

// nodesOf returns a cluster's registered Kubernetes nodes.
func (st *state) nodesOf(clusterID string) []*kubeNode {
	var out []*kubeNode
	for _, n := range st.nodes {
		if n.clusterID == clusterID {
			out = append(out, n)
		}
	}
	return out
}

func (st *state) nodeOfVM(vmID string) *kubeNode {
	for _, n := range st.nodes {
		if n.vmID == vmID {
			return n
		}
	}
	return nil
}
