package admin

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/cluster"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// Dump types: the model as JSON, every list in a fixed order, so two dumps
// of the same state are byte-for-byte equal. Secrets (keys, kubeconfigs)
// are left out.

// DumpState is the whole dump.
type DumpState struct {
	Profile   string        `json:"profile"`
	Clusters  []DumpCluster `json:"clusters"`
	VMMap     []DumpMapRow  `json:"vm_map"`
	VMs       []DumpVM      `json:"vms"`
	Nodes     []DumpNode    `json:"nodes"`
	Rules     []DumpRule    `json:"rules"`
	Networks  []DumpNetwork `json:"networks"`
	PublicIPs []DumpIP      `json:"public_ips"`
	ACLItems  []DumpACLItem `json:"acl_items"`
}

// DumpCluster is a cluster row.
type DumpCluster struct {
	InternalID     int64  `json:"internal_id"`
	ID             string `json:"id"`
	Name           string `json:"name"`
	State          string `json:"state"`
	Size           int64  `json:"size"`
	ControlNodes   int64  `json:"control_nodes"`
	EtcdNodes      int64  `json:"etcd_nodes"`
	NetworkID      string `json:"network_id"`
	PublicIPID     string `json:"public_ip_id,omitempty"`
	Endpoint       string `json:"endpoint"`
	Version        string `json:"version"`
	AccountID      string `json:"account_id"`
	NetworkCleanup bool   `json:"network_cleanup"`
	HasKubeconfig  bool   `json:"has_kubeconfig"`
	// The create-only inputs the server stored. The docker registry
	// password is a secret: only whether one is stored is dumped.
	NodeTemplates          map[string]string `json:"node_templates,omitempty"`
	CNIConfigurationID     string            `json:"cni_configuration_id,omitempty"`
	CNIConfigDetails       map[string]string `json:"cni_config_details,omitempty"`
	ASNumber               *int64            `json:"as_number,omitempty"`
	DockerRegistryURL      string            `json:"docker_registry_url,omitempty"`
	ExternalLoadBalancerIP string            `json:"external_load_balancer_ip,omitempty"`
	DockerRegistryUsername string            `json:"docker_registry_username,omitempty"`
	DockerRegistryPassword bool              `json:"docker_registry_password_set"`
	CSIEnabled             bool              `json:"csi_enabled"`
	Removed                bool              `json:"removed"`
	GC                     bool              `json:"gc"`
	// StateHistory is every state the cluster took, Created first.
	StateHistory []string `json:"state_history"`
}

// DumpMapRow is a kubernetes_cluster_vm_map row.
type DumpMapRow struct {
	InternalID int64  `json:"internal_id"`
	ClusterID  string `json:"cluster_id"`
	VMID       string `json:"vm_id"`
	Control    bool   `json:"control"`
	Etcd       bool   `json:"etcd"`
	External   bool   `json:"external"`
	// ManualUpgrade is the manual_upgrade column: the upgrade skips the VM.
	ManualUpgrade bool   `json:"manual_upgrade"`
	NodeVersion   string `json:"node_version"`
}

// DumpVM is a VM, expunged ones included.
type DumpVM struct {
	InternalID int64  `json:"internal_id"`
	ID         string `json:"id"`
	Name       string `json:"name"`
	State      string `json:"state"`
	Expunged   bool   `json:"expunged"`
	Created    string `json:"created"`
	ClusterID  string `json:"cluster_id"`
	Role       string `json:"role"`
	NetworkID  string `json:"network_id"`
	IP         string `json:"ip"`
	Kubelet    bool   `json:"kubelet"`
	UserVM     bool   `json:"user_vm"`
	// ServiceOfferingID is the VM's own service offering.
	ServiceOfferingID string `json:"service_offering_id"`
	TemplateID        string `json:"template_id"`
}

// DumpNode is a registered Kubernetes node.
type DumpNode struct {
	ClusterID string `json:"cluster_id"`
	Name      string `json:"name"`
	VMID      string `json:"vm_id"`
	Ready     bool   `json:"ready"`
	Control   bool   `json:"control"`
	Version   string `json:"version"`
}

// DumpRule is a firewall, port-forwarding or load balancer rule.
type DumpRule struct {
	InternalID    int64    `json:"internal_id"`
	ID            string   `json:"id"`
	Purpose       string   `json:"purpose"`
	State         string   `json:"state"`
	Protocol      string   `json:"protocol"`
	StartPort     int      `json:"start_port"`
	EndPort       int      `json:"end_port"`
	PrivatePort   int      `json:"private_port,omitempty"`
	PrivateEnd    int      `json:"private_end_port,omitempty"`
	VMID          string   `json:"vm_id,omitempty"`
	IPAddressID   string   `json:"ip_address_id"`
	IPAddress     string   `json:"ip_address"`
	NetworkID     string   `json:"network_id"`
	CIDRs         []string `json:"cidrs"`
	LBName        string   `json:"lb_name,omitempty"`
	LBMembers     []string `json:"lb_members,omitempty"`
	RelatedRuleID int64    `json:"related_rule_internal_id,omitempty"`
}

// DumpNetwork is a guest network.
type DumpNetwork struct {
	InternalID int64  `json:"internal_id"`
	ID         string `json:"id"`
	Name       string `json:"name"`
	State      string `json:"state"`
	VPCID      string `json:"vpc_id,omitempty"`
	ACLID      string `json:"acl_id,omitempty"`
	Removed    bool   `json:"removed"`
}

// DumpIP is a public IP address.
type DumpIP struct {
	InternalID int64  `json:"internal_id"`
	ID         string `json:"id"`
	Address    string `json:"address"`
	NetworkID  string `json:"network_id,omitempty"`
	VPCID      string `json:"vpc_id,omitempty"`
	SourceNat  bool   `json:"source_nat"`
	Released   bool   `json:"released"`
}

// DumpACLItem is a network ACL item; a port of 0 is an item without ports.
type DumpACLItem struct {
	InternalID  int64    `json:"internal_id"`
	ID          string   `json:"id"`
	ACLID       string   `json:"acl_id"`
	Number      int      `json:"number"`
	Protocol    string   `json:"protocol"`
	StartPort   int      `json:"start_port"`
	EndPort     int      `json:"end_port"`
	CIDRs       []string `json:"cidrs"`
	TrafficType string   `json:"traffic_type"`
	Action      string   `json:"action"`
	State       string   `json:"state"`
	Reason      string   `json:"reason,omitempty"`
}

// Dump returns the model as indented JSON, deterministic for a given state.
func (s *Admin) Dump() ([]byte, error) {
	s.Lock()
	d := s.dumpState()
	s.Unlock()
	return json.MarshalIndent(d, "", "  ")
}

// DumpState returns the model as Go values.
func (s *Admin) DumpState() DumpState {
	s.Lock()
	defer s.Unlock()
	return s.dumpState()
}

func (s *Admin) dumpState() DumpState {
	st := s.DB
	d := DumpState{Profile: s.Profile.Name, Clusters: []DumpCluster{}, VMMap: []DumpMapRow{}, VMs: []DumpVM{},
		Nodes: []DumpNode{}, Rules: []DumpRule{}, Networks: []DumpNetwork{}, PublicIPs: []DumpIP{}, ACLItems: []DumpACLItem{}}
	for _, c := range st.Clusters {
		d.Clusters = append(d.Clusters, DumpCluster{InternalID: c.InternalID, ID: c.ID, Name: c.Name, State: c.State,
			Size: c.Size, ControlNodes: c.ControlNodes, EtcdNodes: c.EtcdNodes, NetworkID: c.NetworkID,
			PublicIPID: c.PublicIPID, Endpoint: c.Endpoint, Version: s.VersionSemverOf(c), AccountID: c.AccountID,
			NetworkCleanup: c.NetworkCleanup, HasKubeconfig: c.Kubeconfig != "", Removed: c.Removed, GC: c.GC,
			NodeTemplates: cluster.DumpTemplates(c.NodeTemplates), CNIConfigurationID: c.CNIConfigID, CNIConfigDetails: c.CNIDetails,
			ASNumber: c.ASNumber, DockerRegistryURL: c.DockerURL, DockerRegistryUsername: c.DockerUser,
			ExternalLoadBalancerIP: c.ExternalLBIP,
			DockerRegistryPassword: c.DockerPassword != "", CSIEnabled: c.CSIEnabled, StateHistory: slices.Clone(c.StateHistory)})
	}
	for _, r := range st.VMMap {
		d.VMMap = append(d.VMMap, DumpMapRow{InternalID: r.InternalID, ClusterID: r.ClusterID, VMID: r.VMID,
			Control: r.Control, Etcd: r.Etcd, External: r.External, ManualUpgrade: r.ManualUpgrade, NodeVersion: r.NodeVersion})
	}
	slices.SortFunc(d.VMMap, func(a, b DumpMapRow) int { return cmp.Compare(a.InternalID, b.InternalID) })
	for _, v := range st.VMs {
		d.VMs = append(d.VMs, DumpVM{InternalID: v.InternalID, ID: v.ID, Name: v.Name, State: v.State,
			Expunged: v.Expunged, Created: wire.CSTime(v.Created), ClusterID: v.ClusterID, Role: string(v.Role),
			NetworkID: v.NetworkID, IP: v.IP, Kubelet: v.Kubelet, UserVM: v.UserVM, ServiceOfferingID: v.OfferingID,
			TemplateID: v.TemplateID})
	}
	for _, n := range st.Nodes {
		d.Nodes = append(d.Nodes, DumpNode{ClusterID: n.ClusterID, Name: n.Name, VMID: n.VMID, Ready: s.NodeReady(n),
			Control: n.Control, Version: n.Version})
	}
	slices.SortFunc(d.Nodes, func(a, b DumpNode) int {
		return cmp.Or(cmp.Compare(a.ClusterID, b.ClusterID), cmp.Compare(a.Name, b.Name), cmp.Compare(a.VMID, b.VMID))
	})
	for _, r := range st.Rules {
		dr := DumpRule{InternalID: r.InternalID, ID: r.ID, Purpose: r.Purpose, State: r.State, Protocol: r.Protocol,
			StartPort: r.Start, EndPort: r.End, PrivatePort: r.PrivateStart, PrivateEnd: r.PrivateEnd, VMID: r.VMID,
			IPAddressID: r.IPID, NetworkID: r.NetworkID, CIDRs: append([]string{}, r.CIDRs...), LBName: r.Name,
			LBMembers: r.LBMembers, RelatedRuleID: r.RelatedID}
		if ip := st.IP(r.IPID); ip != nil {
			dr.IPAddress = ip.Address
		}
		d.Rules = append(d.Rules, dr)
	}
	for _, n := range st.Networks {
		d.Networks = append(d.Networks, DumpNetwork{InternalID: n.InternalID, ID: n.ID, Name: n.Name, State: n.State,
			VPCID: n.VPCID, ACLID: n.ACLID, Removed: n.Removed})
	}
	for _, ip := range st.IPs {
		d.PublicIPs = append(d.PublicIPs, DumpIP{InternalID: ip.InternalID, ID: ip.ID, Address: ip.Address,
			NetworkID: ip.NetworkID, VPCID: ip.VPCID, SourceNat: ip.SourceNat, Released: ip.Released})
	}
	for _, it := range st.ACLItems {
		d.ACLItems = append(d.ACLItems, DumpACLItem{InternalID: it.InternalID, ID: it.ID, ACLID: it.ACLID, Number: it.Number,
			Protocol: it.Protocol, StartPort: it.Start, EndPort: it.End, CIDRs: append([]string{}, it.CIDRs...),
			TrafficType: it.TrafficType, Action: it.Action, State: it.State, Reason: it.Reason})
	}
	return d
}
