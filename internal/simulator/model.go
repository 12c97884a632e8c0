package simulator

import (
	"net/netip"
	"time"

	"golang.org/x/crypto/ssh"
)

// Account types as listAccounts reports them.
const (
	accountTypeUser      = 0
	accountTypeRootAdmin = 1
	accountTypeProject   = 5
)

type domain struct {
	internalID int64
	id, name   string
	path       string
	level      int
	created    time.Time
}

type account struct {
	internalID  int64
	id, name    string
	domainID    string
	accountType int
	roleType    string // Admin, User
	projectID   string // set for a project's own account
	isDefault   bool   // a default account of the installation (admin)
	created     time.Time
}

type user struct {
	internalID int64
	id         string
	username   string
	accountID  string
	apiKey     string
	secretKey  string
	created    time.Time
}

type project struct {
	internalID     int64
	id, name       string
	displayText    string
	domainID       string
	accountID      string // the project's own account, which owns its resources
	ownerAccountID string
	created        time.Time
}

type zone struct {
	internalID int64
	id, name   string
	created    time.Time
}

type serviceOffering struct {
	internalID  int64
	id, name    string
	displayText string
	cpu         int
	cpuSpeed    int
	memory      int
	created     time.Time
}

type template struct {
	internalID  int64
	id, name    string
	displayText string
	// forCks is the template's for_cks flag (registerTemplate forcks):
	// addNodesToKubernetesCluster joins only VMs of such templates.
	forCks  bool
	created time.Time
}

// userData is registered user data; registerCniConfiguration stores CNI
// configurations as user data too (cniconfigurationid names one), with
// for_cks set (UserDataVO).
type userData struct {
	internalID int64
	id, name   string
	accountID  string
	// content is the user data as stored: base64, re-encoded with padding
	// (UserDataManagerImpl.validateUserData).
	content string
	// params is the comma-separated list of declared variables, as sent.
	params  string
	forCks  bool
	created time.Time
	removed bool
}

type k8sVersion struct {
	internalID          int64
	id, name            string
	semver              string
	state               string // Enabled, Disabled
	minCPU, minMemory   int
	supportsHA          bool
	supportsAutoscaling bool
	created             time.Time
	// zoneID is the zone the version is for; "" is every zone.
	zoneID string
	arch   string
	// iso is the binaries ISO registered with the version.
	iso     *binariesISO
	removed bool
}

type keyPair struct {
	internalID  int64
	id, name    string
	accountID   string
	fingerprint string
	pub         ssh.PublicKey
	created     time.Time
}

type networkOffering struct {
	internalID   int64
	id, name     string
	displayText  string
	conserveMode bool
	forVPC       bool
}

// networkACL is a network ACL list (network_acl): the two global default
// lists (vpc_id 0) or a VPC's own. Tiers name one (network_acl_id); tiers
// of a VPC may share a list, and its items apply to each of them.
type networkACL struct {
	internalID  int64
	id, name    string
	description string
	vpcID       string // "" for the global default lists
	defaultDeny bool
	forDisplay  bool
	// applied is the list as the tiers' routers last got it
	// (NetworkACLManagerImpl.applyNetworkACL): a move changes the numbers
	// in the database only, until the next apply.
	applied []networkACLItem
}

type vpc struct {
	internalID int64
	id, name   string
	cidr       string
	zoneID     string
	accountID  string
	created    time.Time
}

// Network states.
const (
	netAllocated   = "Allocated"
	netImplemented = "Implemented"
	netDestroyed   = "Destroyed"
)

type network struct {
	internalID  int64
	id, name    string
	displayText string
	zoneID      string
	offeringID  string
	accountID   string
	netType     string // Isolated or Shared
	vpcID       string
	aclID       string
	state       string
	cidr        string // 10.1.N.0/24 by default, see Options.GuestCIDRPrefix
	gateway     string
	inUse       map[netip.Addr]bool // guest addresses held by non-expunged VMs
	// ipRange is a Shared network's guest IP range (its VLAN IP range);
	// invalid on isolated networks, which hand out their whole CIDR.
	ipRange ipRange
	created time.Time
	removed bool
}

type publicIP struct {
	internalID int64
	id         string
	address    string
	zoneID     string
	accountID  string
	networkID  string // associated guest network
	vpcID      string
	sourceNat  bool
	state      string // Allocated
	allocated  time.Time
	released   bool
}

// Node roles of a CKS VM.
type nodeRole string

const (
	roleNone    nodeRole = ""
	roleControl nodeRole = "control"
	roleWorker  nodeRole = "worker"
	roleEtcd    nodeRole = "etcd"
)

// VM states used by the simulator.
const (
	vmStarting  = "Starting"
	vmRunning   = "Running"
	vmStopped   = "Stopped"
	vmDestroyed = "Destroyed"
	vmExpunging = "Expunging"
)

type vm struct {
	internalID   int64
	id, name     string // name is the host name and display name
	state        string
	created      time.Time
	lastUpdated  time.Time
	zoneID       string
	accountID    string
	offeringID   string
	templateID   string
	networkID    string
	ip, mac      string
	nicID        string
	keypair      string
	rootDiskSize int64
	clusterID    string // the cluster that created it (kept when unmapped)
	role         nodeRole
	kubelet      bool   // kubelet running: the node is registered and Ready while the VM runs
	nodeName     string // registered Kubernetes node name override (FQDN)
	hostID       string
	hostName     string // hypervisor host
	expunged     bool
	userVM       bool // deployed by a user (vmtype User), not by CKS
	// tags are the VM's resource tags (createTags, resourcetype UserVm).
	tags map[string]string
}

// Cluster states (KubernetesCluster.State).
const (
	stCreated               = "Created"
	stStarting              = "Starting"
	stRunning               = "Running"
	stStopping              = "Stopping"
	stStopped               = "Stopped"
	stScaling               = "Scaling"
	stScalingStoppedCluster = "ScalingStoppedCluster"
	stUpgrading             = "Upgrading"
	stAlert                 = "Alert"
	stRecovering            = "Recovering"
	stDestroying            = "Destroying"
	stDestroyed             = "Destroyed"
	stError                 = "Error"
)

type cluster struct {
	internalID        int64
	id, name          string
	description       string
	zoneID            string
	offeringID        string
	controlOfferingID string
	workerOfferingID  string
	etcdOfferingID    string
	templateID        string
	versionID         string
	networkID         string
	accountID         string
	keypair           string
	controlNodes      int64
	etcdNodes         int64
	size              int64 // node_count: worker count, written last by scale
	state             string
	// stateHistory is every state the cluster row took, in order (each
	// KubernetesClusterDaoImpl.updateState write), for the dump.
	stateHistory     []string
	created          time.Time
	stateSince       time.Time
	endpoint         string
	publicIPID       string // detail publicipid (VPC clusters)
	networkCleanup   bool   // detail networkCleanup: CKS created the network
	kubeconfig       string // detail kubeConfigData; a secret, never dumped
	clusterType      string
	autoscaling      bool
	minSize, maxSize int64
	csiEnabled       bool
	// Create-only inputs (createManagedKubernetesCluster): the node type
	// templates (control_node_template_id, …), cni_config_id and
	// cni_config_details columns, and the docker registry details. Only the
	// CNI configuration is in the response.
	nodeTemplates  map[nodeRole]string
	cniConfigID    string
	cniDetails     map[string]string
	asNumber       *int64 // sent; the server uses it only for dynamic routing, not modelled
	dockerURL      string
	dockerUser     string
	dockerPassword string // detail with display=false; never dumped or rendered
	// externalLBIP is the detail externalloadbalanceripaddress, stored only
	// on a directly accessed network; never returned.
	externalLBIP  string
	rootDiskSize  int64
	hypervisor    string
	cores, memory int64
	gc            bool
	removed       bool
}

type mapRow struct {
	internalID int64
	clusterID  string
	vmID       string
	control    bool
	etcd       bool
	external   bool
	// manualUpgrade is the row's manual_upgrade column: the upgrade skips
	// the VM (etcd VMs, and external nodes joined with manualupgrade).
	manualUpgrade bool
	nodeVersion   string
}

// kubeNode is a node object registered in a cluster's Kubernetes API.
type kubeNode struct {
	clusterID string
	name      string
	vmID      string
	control   bool
	version   string // semantic version, without "v"
	ip        string
	created   time.Time
}

// Rule purposes and states as stored in the firewall_rules table.
const (
	purposeFirewall = "Firewall"
	purposePF       = "PortForwarding"
	purposeLB       = "LoadBalancing"

	ruleStaged = "Staged"
	ruleAdd    = "Add"
	ruleActive = "Active"
	ruleRevoke = "Revoke"
)

// rule is one row of the shared firewall_rules table: firewall, port
// forwarding and load balancer rules draw ids from one sequence.
type rule struct {
	internalID int64
	id         string
	purpose    string
	protocol   string // lowercase
	hasPorts   bool
	start, end int
	ipID       string
	networkID  string
	accountID  string
	state      string
	cidrs      []string
	destCidrs  []string
	icmpType   *int
	icmpCode   *int
	forDisplay bool
	relatedID  int64 // firewall rule opened for a port-forwarding rule
	created    time.Time

	// Port forwarding.
	privateStart, privateEnd int
	vmID                     string
	vmGuestIP                string

	// Load balancing.
	name, description string
	algorithm         string
	lbMembers         []string
}

// state is the whole model. Slices keep creation (internal id) order.
type state struct {
	seq     map[string]int64
	ruleSeq int64

	domains    []*domain
	accounts   []*account
	users      []*user
	projects   []*project
	zones      []*zone
	offerings  []*serviceOffering
	templates  []*template
	versions   []*k8sVersion
	keypairs   []*keyPair
	userData   []*userData
	netOffers  []*networkOffering
	acls       []*networkACL
	aclItems   []*networkACLItem
	vpcs       []*vpc
	networks   []*network
	ips        []*publicIP
	vms        []*vm
	vmByID     map[string]*vm // lowercased id -> VM, for the hot lookups
	clusters   []*cluster
	vmMap      []*mapRow
	mapTrash   []*mapRow // rows deleted through the admin API, for restore
	rules      []*rule
	nodes      []*kubeNode
	jobs       []*job
	seedIDs    seedIDs
	publicNet  string // id of the zone's public network
	physNetID  string
	hostIDs    []string
	hostNames  []string
	nextNetNum int

	// isos are the Kubernetes versions' binaries ISOs; isoDownloads say how
	// downloads of an ISO URL go (SetISODownload).
	isos         []*binariesISO
	isoDownloads map[string]ISODownload
}

func newState() *state {
	return &state{seq: map[string]int64{}, ruleSeq: 99, nextNetNum: 1, vmByID: map[string]*vm{}}
}

// seedIDs are the ids Info reports.
type seedIDs struct {
	rootDomain        string
	adminAccount      string
	tenantAccount     string
	adminUser         string
	tenantUser        string
	project           string
	zone              string
	offeringSmall     string
	offeringMedium    string
	offeringLarge     string
	networkOffering   string
	vpcTierOffering   string
	isolatedNetwork   string
	vpc               string
	vpcTier           string
	vpcDenyTier       string
	vpcACL            string
	vpcACLTier        string
	vpcACLTierLB      string
	systemVMTemplate  string
	nodeTemplate      string
	plainTemplate     string
	cniConfig         string
	sharedNetwork     string
	sharedOffering    string
	guestOS           string
	versions          map[string]string
	disabledVersions  map[string]string
	defaultVersionKey string
}

// ipRange is an inclusive range of guest addresses.
type ipRange struct{ first, last netip.Addr }

func (r ipRange) valid() bool { return r.first.IsValid() && r.last.IsValid() }

func (r ipRange) contains(a netip.Addr) bool {
	return r.valid() && r.first.Compare(a) <= 0 && a.Compare(r.last) <= 0
}
