package model

import (
	"net/netip"
	"time"

	"golang.org/x/crypto/ssh"
)

// Account types as listAccounts reports them.
const (
	AccountTypeUser      = 0
	AccountTypeRootAdmin = 1
	AccountTypeProject   = 5
)

type Domain struct {
	InternalID int64
	ID, Name   string
	Path       string
	Level      int
	Created    time.Time
}

type Account struct {
	InternalID  int64
	ID, Name    string
	DomainID    string
	AccountType int
	RoleType    string // Admin, User
	ProjectID   string // set for a project's own account
	IsDefault   bool   // a default account of the installation (admin)
	Created     time.Time
}

type User struct {
	InternalID int64
	ID         string
	Username   string
	AccountID  string
	APIKey     string
	SecretKey  string
	Created    time.Time
}

type Project struct {
	InternalID     int64
	ID, Name       string
	DisplayText    string
	DomainID       string
	AccountID      string // the project's own account, which owns its resources
	OwnerAccountID string
	Created        time.Time
}

type Zone struct {
	InternalID int64
	ID, Name   string
	Created    time.Time
}

type ServiceOffering struct {
	InternalID  int64
	ID, Name    string
	DisplayText string
	CPU         int
	CPUSpeed    int
	Memory      int
	Created     time.Time
}

type Template struct {
	InternalID  int64
	ID, Name    string
	DisplayText string
	// ForCKS is the template's for_cks flag (registerTemplate forcks):
	// addNodesToKubernetesCluster joins only VMs of such templates.
	ForCKS  bool
	Created time.Time
}

// UserData is registered user data; registerCniConfiguration stores CNI
// configurations as user data too (cniconfigurationid names one), with
// for_cks set (UserDataVO).
type UserData struct {
	InternalID int64
	ID, Name   string
	AccountID  string
	// Content is the user data as stored: base64, re-encoded with padding
	// (UserDataManagerImpl.validateUserData).
	Content string
	// Params is the comma-separated list of declared variables, as sent.
	Params  string
	ForCKS  bool
	Created time.Time
	Removed bool
}

type KubernetesVersion struct {
	InternalID          int64
	ID, Name            string
	Semver              string
	State               string // Enabled, Disabled
	MinCPU, MinMemory   int
	SupportsHA          bool
	SupportsAutoscaling bool
	Created             time.Time
	// ZoneID is the zone the version is for; "" is every zone.
	ZoneID string
	Arch   string
	// ISO is the binaries ISO registered with the version.
	ISO     *BinariesISO
	Removed bool
}

type KeyPair struct {
	InternalID  int64
	ID, Name    string
	AccountID   string
	Fingerprint string
	Pub         ssh.PublicKey
	Created     time.Time
}

type NetworkOffering struct {
	InternalID   int64
	ID, Name     string
	DisplayText  string
	ConserveMode bool
	ForVPC       bool
}

// NetworkACL is a network ACL list (network_acl): the two global default
// lists (vpc_id 0) or a VPC's own. Tiers name one (network_acl_id); tiers
// of a VPC may share a list, and its items apply to each of them.
type NetworkACL struct {
	InternalID  int64
	ID, Name    string
	Description string
	VPCID       string // "" for the global default lists
	DefaultDeny bool
	ForDisplay  bool
	// Applied is the list as the tiers' routers last got it
	// (NetworkACLManagerImpl.applyNetworkACL): a move changes the numbers
	// in the database only, until the next apply.
	Applied []NetworkACLItem
}

type VPC struct {
	InternalID int64
	ID, Name   string
	CIDR       string
	ZoneID     string
	AccountID  string
	Created    time.Time
}

// Network states.
const (
	NetworkAllocated   = "Allocated"
	NetworkImplemented = "Implemented"
	NetworkDestroyed   = "Destroyed"
)

type Network struct {
	InternalID  int64
	ID, Name    string
	DisplayText string
	ZoneID      string
	OfferingID  string
	AccountID   string
	NetType     string // Isolated or Shared
	VPCID       string
	ACLID       string
	State       string
	CIDR        string // 10.1.N.0/24 by default, see Options.GuestCIDRPrefix
	Gateway     string
	InUse       map[netip.Addr]bool // guest addresses held by non-expunged VMs
	// IPRange is a Shared network's guest IP range (its VLAN IP range);
	// invalid on isolated networks, which hand out their whole CIDR.
	IPRange IPRange
	Created time.Time
	Removed bool
}

type PublicIP struct {
	InternalID int64
	ID         string
	Address    string
	ZoneID     string
	AccountID  string
	NetworkID  string // associated guest network
	VPCID      string
	SourceNat  bool
	State      string // Allocated
	Allocated  time.Time
	Released   bool
}

// Node roles of a CKS VM.
type NodeRole string

const (
	RoleNone    NodeRole = ""
	RoleControl NodeRole = "control"
	RoleWorker  NodeRole = "worker"
	RoleEtcd    NodeRole = "etcd"
)

// VM states used by the simulator.
const (
	VMStarting  = "Starting"
	VMRunning   = "Running"
	VMStopped   = "Stopped"
	VMDestroyed = "Destroyed"
	VMExpunging = "Expunging"
)

type VM struct {
	InternalID   int64
	ID, Name     string // name is the host name and display name
	State        string
	Created      time.Time
	LastUpdated  time.Time
	ZoneID       string
	AccountID    string
	OfferingID   string
	TemplateID   string
	NetworkID    string
	IP, MAC      string
	NICID        string
	Keypair      string
	RootDiskSize int64
	ClusterID    string // the cluster that created it (kept when unmapped)
	Role         NodeRole
	Kubelet      bool   // kubelet running: the node is registered and Ready while the VM runs
	NodeName     string // registered Kubernetes node name override (FQDN)
	HostID       string
	HostName     string // hypervisor host
	Expunged     bool
	UserVM       bool // deployed by a user (vmtype User), not by CKS
	// Tags are the VM's resource tags (createTags, resourcetype UserVm).
	Tags map[string]string
}

// Cluster states (KubernetesCluster.State).
const (
	ClusterCreated               = "Created"
	ClusterStarting              = "Starting"
	ClusterRunning               = "Running"
	ClusterStopping              = "Stopping"
	ClusterStopped               = "Stopped"
	ClusterScaling               = "Scaling"
	ClusterScalingStoppedCluster = "ScalingStoppedCluster"
	ClusterUpgrading             = "Upgrading"
	ClusterAlert                 = "Alert"
	ClusterRecovering            = "Recovering"
	ClusterDestroying            = "Destroying"
	ClusterDestroyed             = "Destroyed"
	ClusterError                 = "Error"
)

type Cluster struct {
	InternalID        int64
	ID, Name          string
	Description       string
	ZoneID            string
	OfferingID        string
	ControlOfferingID string
	WorkerOfferingID  string
	EtcdOfferingID    string
	TemplateID        string
	VersionID         string
	NetworkID         string
	AccountID         string
	Keypair           string
	ControlNodes      int64
	EtcdNodes         int64
	Size              int64 // node_count: worker count, written last by scale
	State             string
	// StateHistory is every state the cluster row took, in order (each
	// KubernetesClusterDaoImpl.updateState write), for the dump.
	StateHistory     []string
	Created          time.Time
	StateSince       time.Time
	Endpoint         string
	PublicIPID       string // detail publicipid (VPC clusters)
	NetworkCleanup   bool   // detail networkCleanup: CKS created the network
	Kubeconfig       string // detail kubeConfigData; a secret, never dumped
	ClusterType      string
	Autoscaling      bool
	MinSize, MaxSize int64
	CSIEnabled       bool
	// Create-only inputs (createManagedKubernetesCluster): the node type
	// templates (control_node_template_id, …), cni_config_id and
	// cni_config_details columns, and the docker registry details. Only the
	// CNI configuration is in the response.
	NodeTemplates  map[NodeRole]string
	CNIConfigID    string
	CNIDetails     map[string]string
	ASNumber       *int64 // sent; the server uses it only for dynamic routing, not modelled
	DockerURL      string
	DockerUser     string
	DockerPassword string // detail with display=false; never dumped or rendered
	// ExternalLBIP is the detail externalloadbalanceripaddress, stored only
	// on a directly accessed network; never returned.
	ExternalLBIP  string
	RootDiskSize  int64
	Hypervisor    string
	Cores, Memory int64
	GC            bool
	Removed       bool
}

type MapRow struct {
	InternalID int64
	ClusterID  string
	VMID       string
	Control    bool
	Etcd       bool
	External   bool
	// ManualUpgrade is the row's manual_upgrade column: the upgrade skips
	// the VM (etcd VMs, and external nodes joined with manualupgrade).
	ManualUpgrade bool
	NodeVersion   string
}

// KubeNode is a node object registered in a cluster's Kubernetes API.
type KubeNode struct {
	ClusterID string
	Name      string
	VMID      string
	Control   bool
	Version   string // semantic version, without "v"
	IP        string
	Created   time.Time
}

// Rule purposes and states as stored in the firewall_rules table.
const (
	PurposeFirewall = "Firewall"
	PurposePF       = "PortForwarding"
	PurposeLB       = "LoadBalancing"

	RuleStaged = "Staged"
	RuleAdd    = "Add"
	RuleActive = "Active"
	RuleRevoke = "Revoke"
)

// Rule is one row of the shared firewall_rules table: firewall, port
// forwarding and load balancer rules draw ids from one sequence.
type Rule struct {
	InternalID int64
	ID         string
	Purpose    string
	Protocol   string // lowercase
	HasPorts   bool
	Start, End int
	IPID       string
	NetworkID  string
	AccountID  string
	State      string
	CIDRs      []string
	DestCIDRs  []string
	ICMPType   *int
	ICMPCode   *int
	ForDisplay bool
	RelatedID  int64 // firewall rule opened for a port-forwarding rule
	Created    time.Time

	// Port forwarding.
	PrivateStart, PrivateEnd int
	VMID                     string
	VMGuestIP                string

	// Load balancing.
	Name, Description string
	Algorithm         string
	LBMembers         []string
}

// DB is the whole model. Slices keep creation (internal id) order.
type DB struct {
	Seq     map[string]int64
	RuleSeq int64

	Domains    []*Domain
	Accounts   []*Account
	Users      []*User
	Projects   []*Project
	Zones      []*Zone
	Offerings  []*ServiceOffering
	Templates  []*Template
	Versions   []*KubernetesVersion
	Keypairs   []*KeyPair
	UserData   []*UserData
	NetOffers  []*NetworkOffering
	ACLs       []*NetworkACL
	ACLItems   []*NetworkACLItem
	VPCs       []*VPC
	Networks   []*Network
	IPs        []*PublicIP
	VMs        []*VM
	VMByID     map[string]*VM // lowercased id -> VM, for the hot lookups
	Clusters   []*Cluster
	VMMap      []*MapRow
	MapTrash   []*MapRow // rows deleted through the admin API, for restore
	Rules      []*Rule
	Nodes      []*KubeNode
	Jobs       []*Job
	SeedIDs    seedIDs
	PublicNet  string // id of the zone's public network
	PhysNetID  string
	HostIDs    []string
	HostNames  []string
	NextNetNum int

	// ISOs are the Kubernetes versions' binaries ISOs; isoDownloads say how
	// downloads of an ISO URL go (SetISODownload).
	ISOs         []*BinariesISO
	ISODownloads map[string]ISODownload
}

func NewDB() *DB {
	return &DB{Seq: map[string]int64{}, RuleSeq: 99, NextNetNum: 1, VMByID: map[string]*VM{}}
}

// seedIDs are the ids Info reports.
type seedIDs struct {
	RootDomain        string
	AdminAccount      string
	TenantAccount     string
	AdminUser         string
	TenantUser        string
	Project           string
	Zone              string
	OfferingSmall     string
	OfferingMedium    string
	OfferingLarge     string
	NetworkOffering   string
	VPCTierOffering   string
	IsolatedNetwork   string
	VPC               string
	VPCTier           string
	VPCDenyTier       string
	VPCACL            string
	VPCACLTier        string
	VPCACLTierLB      string
	SystemVMTemplate  string
	NodeTemplate      string
	PlainTemplate     string
	CNIConfig         string
	SharedNetwork     string
	SharedOffering    string
	GuestOS           string
	Versions          map[string]string
	DisabledVersions  map[string]string
	DefaultVersionKey string
}

// IPRange is an inclusive range of guest addresses.
type IPRange struct{ First, Last netip.Addr }

func (r IPRange) Valid() bool { return r.First.IsValid() && r.Last.IsValid() }

func (r IPRange) Contains(a netip.Addr) bool {
	return r.Valid() && r.First.Compare(a) <= 0 && a.Compare(r.Last) <= 0
}
