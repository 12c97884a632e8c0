package cluster

import (
	"strconv"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// renderCluster is KubernetesClusterManagerImpl.createKubernetesClusterResponse
// (4.22 KubernetesClusterResponse; it sets no consoleendpoint). Callers hold
// the lock.
func (s *Workers) renderCluster(c *model.Cluster, who *core.Caller) map[string]any {
	out := map[string]any{
		"id":                  c.ID,
		"name":                c.Name,
		"description":         c.Description,
		"zoneid":              c.ZoneID,
		"templateid":          c.TemplateID,
		"networkid":           c.NetworkID,
		"kubernetesversionid": c.VersionID,
		"masternodes":         c.ControlNodes,
		"controlnodes":        c.ControlNodes,
		"size":                c.Size,
		"etcdnodes":           c.EtcdNodes,
		"state":               c.State,
		"cpunumber":           strconv.FormatInt(c.Cores, 10),
		"memory":              strconv.FormatInt(c.Memory, 10),
		"endpoint":            c.Endpoint,
		"autoscalingenabled":  c.Autoscaling,
		"csienabled":          c.CSIEnabled,
		"clustertype":         c.ClusterType,
		"created":             wire.CSTime(c.Created),
		"hasannotations":      false,
	}
	if z := s.DB.Zone(c.ZoneID); z != nil {
		out["zonename"] = z.Name
	}
	if t := s.DB.Template(c.TemplateID); t != nil {
		out["templatename"] = t.Name
	}
	if v := s.DB.Version(c.VersionID); v != nil {
		out["kubernetesversionname"] = v.Name
	}
	if n := s.DB.Network(c.NetworkID); n != nil {
		out["associatednetworkname"] = n.Name
	}
	for key, id := range map[string]string{"serviceoffering": c.OfferingID, "controloffering": c.ControlOfferingID,
		"workeroffering": c.WorkerOfferingID, "etcdoffering": c.EtcdOfferingID} {
		if o := s.DB.Offering(id); o != nil {
			out[key+"id"] = o.ID
			out[key+"name"] = o.Name
		}
	}
	if c.Keypair != "" {
		out["keypair"] = c.Keypair
	}
	// The only create-only input the response carries besides csienabled;
	// node templates, CNI details, AS number, docker registry and external
	// load balancer address are stored but never returned.
	if u := s.DB.UserDataByID(c.CNIConfigID); u != nil {
		out["cniconfigurationid"] = u.ID
		out["cniconfigname"] = u.Name
	}
	if c.Autoscaling {
		out["minsize"] = c.MinSize
		out["maxsize"] = c.MaxSize
	}
	s.OwnerFields(out, c.AccountID)
	if ip := s.onlySourceNatIP(c.NetworkID); ip != nil {
		out["ipaddress"] = ip.Address
		out["ipaddressid"] = ip.ID
	}
	if etcd := s.etcdIPs(c); len(etcd) > 0 {
		out["etcdips"] = etcd
	}
	vms := []map[string]any{}
	full := who == nil || who.IsAdmin()
	for _, row := range s.DB.MapRows(c.ID) {
		v := s.DB.VM(row.VMID)
		if v == nil {
			continue // the view joins on live VMs: expunged or missing VMs are skipped
		}
		r := s.renderVM(v, full)
		r["isetcdnode"] = row.Etcd
		r["isexternalnode"] = row.External
		if row.NodeVersion != "" {
			r["kubernetesnodeversion"] = row.NodeVersion
		}
		vms = append(vms, r)
	}
	out["virtualmachines"] = core.OrderList(s.Runtime, vms)
	if s.Profile.NoCSI {
		delete(out, "csienabled")
	}
	for _, f := range s.Opts.ClusterResponseOmits {
		delete(out, f)
	}
	return out
}

// onlySourceNatIP returns the network's source NAT IP when it has exactly
// one.
func (s *Workers) onlySourceNatIP(networkID string) *model.PublicIP {
	var found *model.PublicIP
	for _, p := range s.DB.IPs {
		if !p.Released && p.NetworkID == networkID && p.SourceNat {
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
func (s *Workers) etcdIPs(c *model.Cluster) map[string]string {
	out := map[string]string{}
	for _, row := range s.DB.MapRows(c.ID) {
		if !row.Etcd {
			continue
		}
		for _, r := range s.DB.Rules {
			if r.Purpose == model.PurposePF && r.VMID == row.VMID && r.Start == etcdNodesStartPort && r.State != model.RuleRevoke {
				if ip := s.DB.IP(r.IPID); ip != nil {
					out[ip.ID] = ip.Address
				}
			}
		}
	}
	return out
}
