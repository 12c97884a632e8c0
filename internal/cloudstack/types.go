package cloudstack

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
	// Listed is the rule's place in the server's listing, 0 for the first.
	// The list itself comes sorted by id (collectPages); only the etcd
	// rule judgement reads this, as the one hint of age CloudStack gives
	// (rules.ArmedEtcdRules).
	Listed      int
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
