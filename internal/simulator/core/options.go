package core

import "time"

// Options configure a Simulator.
type Options struct {
	// Profile selects the behaviour profile, one of Profiles():
	// Profile42211 ("4.22.1.1", the default), Profile42200 ("4.22.0.0") or
	// ProfilePR14165 ("pr14165"; ProfileFixed, "fixed", is its alias).
	Profile string
	// JobDuration is how long an async job takes from start to finish. Zero
	// finishes jobs as fast as possible, but still asynchronously.
	JobDuration time.Duration
	// JobQueueDelay is how long an async job waits in the executor's queue
	// before it runs, on top of JobDuration. A real management server
	// answers the command with the job id once the job is queued
	// (AsyncJobManagerImpl.submitAsyncJob), and the job's first change,
	// such as a cluster's move to Scaling, comes when an executor thread
	// runs it; a busy server runs it later. Zero starts jobs at once.
	JobQueueDelay time.Duration
	// Clock drives VM name suffixes, created timestamps and the state
	// scanner. Nil means time.Now.
	Clock func() time.Time
	// Seed makes generated UUIDs, API keys, the key pair, the twin-forward
	// pick of findByNetworkAndPorts and the shuffled list order
	// deterministic when non-zero.
	Seed uint64
	// ListOrder is the order of every list the API returns: ListOrderReal
	// ("", the management server's own order), ListOrderReversed
	// ("reversed") or ListOrderShuffled ("shuffled", a new random
	// permutation on every call). The last two check that a client does not
	// depend on an order the server does not promise.
	ListOrder string
	// WorkerRuleOrder is the order in which the CKS workers read the
	// firewall rules of a public IP when they pick one by its ports: the
	// DAO query behind the scale's and the destroy's picks
	// (FirewallRulesDaoImpl.listByIpPurposeProtocolAndNotRevoked) has no
	// ORDER BY, so the database decides. WorkerRuleOrderAscending ("", by
	// id, what MySQL returns in practice) or WorkerRuleOrderDescending
	// ("descending"), for checking that a client does not depend on it.
	WorkerRuleOrder string
	// ScannerInterval is the period of the cluster state scanner, which runs
	// on a timer as the management server's KubernetesClusterStatusScanner
	// does, never because of an API call. Zero means
	// DefaultScannerInterval (30 s). RunScanner runs it at once.
	ScannerInterval time.Duration
	// DisableScanner turns off the scanner's timer; RunScanner still runs it.
	DisableScanner bool
	// MaxClusterSize is cloud.kubernetes.cluster.max.size (control plus
	// worker nodes). Zero means the CloudStack default of 10.
	MaxClusterSize int
	// GuestCIDRPrefix is the prefix length of the guest CIDR of every
	// isolated network the simulator creates (16 to 29). Zero means
	// CloudStack's default guest CIDR size, /24 (10.1.1.0/24); a larger
	// network (smaller prefix) holds more VMs.
	GuestCIDRPrefix int
	// PublicIPBlocks is how many loopback /24 blocks (253 addresses each)
	// the zone's public IPs come from: one per isolated network's source
	// NAT and per VPC. Zero means one, about 250 clusters on isolated
	// networks; fleet benchmarks need more.
	PublicIPBlocks int
	// ISODownloadDuration is how long the image store takes to download
	// the binaries ISO of a Kubernetes version an administrator adds; zero
	// means DefaultISODownloadDuration. SetISODownload sets it, or a
	// failure, per URL.
	ISODownloadDuration time.Duration
	// ExperimentalFeatures is cloud.kubernetes.cluster.experimental.features.enabled
	// (default false), which a private docker registry needs.
	ExperimentalFeatures bool
	// ClusterResponseOmits names fields of the cluster response that the
	// server leaves out, as a server of another version or build may (for
	// example cniconfigurationid); the model is unchanged.
	ClusterResponseOmits []string
	// Logf receives the simulator's log lines (what the management server
	// would log). Nil discards them. Secrets are never logged.
	Logf func(format string, args ...any)
}

// List order modes (Options.ListOrder).
const (
	// ListOrderReal returns every list in the order the management server
	// builds it (see FIDELITY.md): listFirewallRules and
	// listPortForwardingRules newest first, listNetworks newest first,
	// listPublicIpAddresses by address descending, everything else by id
	// ascending.
	ListOrderReal = ""
	// ListOrderReversed returns every list (virtualmachines[] of a cluster
	// included) in the reverse of the real order.
	ListOrderReversed = "reversed"
	// ListOrderShuffled returns every list randomly permuted, anew on every
	// call (seeded from Options.Seed when it is non-zero).
	ListOrderShuffled = "shuffled"
)

// Worker rule orders (Options.WorkerRuleOrder).
const (
	// WorkerRuleOrderAscending reads rules by id, as MySQL answers a query
	// without ORDER BY on the firewall_rules table in practice.
	WorkerRuleOrderAscending = ""
	// WorkerRuleOrderDescending reads them newest first.
	WorkerRuleOrderDescending = "descending"
)
