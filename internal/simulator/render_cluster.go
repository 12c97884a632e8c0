package simulator

import (
	"strconv"
)

// renderCluster is KubernetesClusterManagerImpl.createKubernetesClusterResponse
// (4.22 KubernetesClusterResponse; it sets no consoleendpoint). Callers hold
// s.mu.
func (s *Simulator) renderCluster(c *cluster, who *caller) map[string]any {
	out := map[string]any{
		"id":                  c.id,
		"name":                c.name,
		"description":         c.description,
		"zoneid":              c.zoneID,
		"templateid":          c.templateID,
		"networkid":           c.networkID,
		"kubernetesversionid": c.versionID,
		"masternodes":         c.controlNodes,
		"controlnodes":        c.controlNodes,
		"size":                c.size,
		"etcdnodes":           c.etcdNodes,
		"state":               c.state,
		"cpunumber":           strconv.FormatInt(c.cores, 10),
		"memory":              strconv.FormatInt(c.memory, 10),
		"endpoint":            c.endpoint,
		"autoscalingenabled":  c.autoscaling,
		"csienabled":          c.csiEnabled,
		"clustertype":         c.clusterType,
		"created":             csTime(c.created),
		"hasannotations":      false,
	}
	if z := s.st.zone(c.zoneID); z != nil {
		out["zonename"] = z.name
	}
	if t := s.st.template(c.templateID); t != nil {
		out["templatename"] = t.name
	}
	if v := s.st.version(c.versionID); v != nil {
		out["kubernetesversionname"] = v.name
	}
	if n := s.st.network(c.networkID); n != nil {
		out["associatednetworkname"] = n.name
	}
	for key, id := range map[string]string{"serviceoffering": c.offeringID, "controloffering": c.controlOfferingID,
		"workeroffering": c.workerOfferingID, "etcdoffering": c.etcdOfferingID} {
		if o := s.st.offering(id); o != nil {
			out[key+"id"] = o.id
			out[key+"name"] = o.name
		}
	}
	if c.keypair != "" {
		out["keypair"] = c.keypair
	}
	// The only create-only input the response carries besides csienabled;
	// node templates, CNI details, AS number, docker registry and external
	// load balancer address are stored but never returned.
	if u := s.st.userDataByID(c.cniConfigID); u != nil {
		out["cniconfigurationid"] = u.id
		out["cniconfigname"] = u.name
	}
	if c.autoscaling {
		out["minsize"] = c.minSize
		out["maxsize"] = c.maxSize
	}
	s.ownerFields(out, c.accountID)
	if ip := s.onlySourceNatIP(c.networkID); ip != nil {
		out["ipaddress"] = ip.address
		out["ipaddressid"] = ip.id
	}
	if etcd := s.etcdIPs(c); len(etcd) > 0 {
		out["etcdips"] = etcd
	}
	vms := []map[string]any{}
	full := who == nil || who.isAdmin()
	for _, row := range s.st.mapRows(c.id) {
		v := s.st.vm(row.vmID)
		if v == nil {
			continue // the view joins on live VMs: expunged or missing VMs are skipped
		}
		r := s.renderVM(v, full)
		r["isetcdnode"] = row.etcd
		r["isexternalnode"] = row.external
		if row.nodeVersion != "" {
			r["kubernetesnodeversion"] = row.nodeVersion
		}
		vms = append(vms, r)
	}
	out["virtualmachines"] = orderList(s, vms)
	if s.profile.noCSI {
		delete(out, "csienabled")
	}
	for _, f := range s.opts.ClusterResponseOmits {
		delete(out, f)
	}
	return out
}

// onlySourceNatIP returns the network's source NAT IP when it has exactly
// one.
func (s *Simulator) onlySourceNatIP(networkID string) *publicIP {
	var found *publicIP
	for _, p := range s.st.ips {
		if !p.released && p.networkID == networkID && p.sourceNat {
			if found != nil {
				return nil
			}
			found = p
		}
	}
	return found
}

// etcdIPs maps public IP uuid -> address for etcd VMs' PF rules whose public
// port is exactly the etcd start port (so only etcd node 1 appears).
func (s *Simulator) etcdIPs(c *cluster) map[string]string {
	out := map[string]string{}
	for _, row := range s.st.mapRows(c.id) {
		if !row.etcd {
			continue
		}
		for _, r := range s.st.rules {
			if r.purpose == purposePF && r.vmID == row.vmID && r.start == etcdNodesStartPort && r.state != ruleRevoke {
				if ip := s.st.ip(r.ipID); ip != nil {
					out[ip.id] = ip.address
				}
			}
		}
	}
	return out
}
