package cloudstack

// Cluster is a CKS cluster as listKubernetesClusters reports it.
type Cluster struct {
	ID                    string
	Name                  string
	Description           string
	ZoneID                string
	ZoneName              string
	KubernetesVersionID   string
	KubernetesVersionName string
	ServiceOfferingID     string
	ControlOfferingID     string
	WorkerOfferingID      string
	EtcdOfferingID        string
	// OfferingNames names the cluster's offerings by id, as the response
	// names them (serviceofferingname, controlofferingname, ...).
	OfferingNames      map[string]string
	TemplateID         string
	NetworkID          string
	Account            string
	DomainID           string
	ProjectID          string
	Keypair            string
	ControlNodes       int64
	EtcdNodes          int64
	Size               int64
	State              string
	Endpoint           string
	IPAddress          string
	IPAddressID        string
	AutoscalingEnabled bool
	MinSize            int64
	MaxSize            int64
	ClusterType        string
	// CSIEnabled and CNIConfigurationID are the only create-only inputs
	// KubernetesClusterManagerImpl.createKubernetesClusterResponse reports
	// (4.22).
	CSIEnabled bool
	// CSIReported is whether the response had csienabled at all: servers
	// before 4.22 have no such field.
	CSIReported        bool
	CNIConfigurationID string
	Created            string
	// VirtualMachines is the cluster's VM map as the API lists it: usually
	// etcd, control, then workers, but the API guarantees no order, so
	// nothing may depend on the position of a VM.
	VirtualMachines []ClusterVM
}

// ExternalNodes counts the external nodes of the VM map: VMs joined with
// addNodesToKubernetesCluster.
func (c *Cluster) ExternalNodes() int64 {
	var n int64
	for _, vm := range c.VirtualMachines {
		if vm.IsExternalNode {
			n++
		}
	}
	return n
}

// ManagedWorkers is the number of workers CKS made and scales: Size
// (node_count) counts the external nodes too, which
// addNodesToKubernetesCluster adds to it and a scale must keep.
func (c *Cluster) ManagedWorkers() int64 { return c.Size - c.ExternalNodes() }

// ClusterVM is one row of a cluster's VM map. IsEtcdNode and IsExternalNode
// are decoded by this package because cloudstack-go's VirtualMachine drops them.
type ClusterVM struct {
	ID                    string
	Name                  string
	DisplayName           string
	State                 string
	Created               string
	IPAddress             string
	ServiceOfferingID     string
	ServiceOfferingName   string
	TemplateID            string
	IsEtcdNode            bool
	IsExternalNode        bool
	KubernetesNodeVersion string
}

// VirtualMachine is a VM as listVirtualMachines reports it.
type VirtualMachine struct {
	ID          string
	Name        string
	DisplayName string
	State       string
	Created     string
	VMType      string
	Account     string
	DomainID    string
	ProjectID   string
	ZoneID      string
	IPAddress   string
	NetworkIDs  []string
	// DefaultNetworkID is the network of the VM's default NIC, "" when no
	// NIC says it is the default.
	DefaultNetworkID  string
	TemplateID        string
	TemplateName      string
	ServiceOfferingID string
	// Tags are the VM's resource tags.
	Tags map[string]string
}

// Template is a template as listTemplates reports it with details=all.
type Template struct {
	ID   string
	Name string
	// ForCKS is the template's for_cks flag: only VMs of such templates can
	// join a CKS cluster (KubernetesClusterManagerImpl.validateNodes).
	ForCKS bool
}

// FirewallRule is an ingress firewall rule on a public IP.
type FirewallRule struct {
	ID          string
	Protocol    string
	StartPort   int
	EndPort     int
	CIDRList    []string
	IPAddressID string
	IPAddress   string
	NetworkID   string
	State       string
}

// PortForwardingRule forwards public ports of an IP to a VM.
type PortForwardingRule struct {
	ID                 string
	Protocol           string
	PublicPort         int
	PublicEndPort      int
	PrivatePort        int
	PrivateEndPort     int
	VirtualMachineID   string
	VirtualMachineName string
	VMGuestIP          string
	CIDRList           []string
	IPAddressID        string
	IPAddress          string
	NetworkID          string
	State              string
}

// LoadBalancerRule is a load balancer rule on a public IP.
type LoadBalancerRule struct {
	ID          string
	Name        string
	Protocol    string
	PublicPort  int
	PrivatePort int
	Algorithm   string
	PublicIPID  string
	PublicIP    string
	NetworkID   string
	State       string
}

// PublicIPAddress is an allocated public IP.
type PublicIPAddress struct {
	ID                  string
	IPAddress           string
	IsSourceNat         bool
	AssociatedNetworkID string
	VPCID               string
	ZoneID              string
	State               string
}

// Network is a guest network.
type Network struct {
	ID     string
	Name   string
	Type   string // Isolated, Shared, L2
	State  string
	VPCID  string
	ZoneID string
	// ACLID is a VPC tier's network ACL list.
	ACLID string
	// ConserveMode is the network offering's conserve mode, which decides
	// whether CKS balances a VPC tier cluster's API or forwards it.
	ConserveMode bool
}

// KubernetesVersion is a CKS supported Kubernetes version.
type KubernetesVersion struct {
	ID                  string
	Name                string
	SemanticVersion     string
	ZoneID              string
	State               string // Enabled or Disabled
	ISOState            string // Ready when usable
	MinCPUNumber        int
	MinMemory           int
	SupportsHA          bool
	SupportsAutoscaling bool
	// ISOID and ISOName name the version's binaries ISO; DirectDownload
	// tells whether it bypasses secondary storage.
	ISOID          string
	ISOName        string
	DirectDownload bool
	Arch           string
	// Created is the server's yyyy-MM-dd'T'HH:mm:ssZ timestamp.
	Created string
}

// Zone is a CloudStack zone.
type Zone struct {
	ID   string
	Name string
}

// ServiceOffering is a compute offering.
type ServiceOffering struct {
	ID        string
	Name      string
	CPUNumber int
	Memory    int
}

// Project is a CloudStack project.
type Project struct {
	ID          string
	Name        string
	DisplayText string
	State       string
}

// AsyncRef is what an async create call returns at once: the new entity's id
// (empty for non-create commands) and the job to wait for.
type AsyncRef struct {
	ID    string
	JobID string
}
