package simulator

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/admin"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/catalog"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/cluster"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/endpoints"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/network"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/profiles"
)

// Options configure a Simulator (see core.Options).
type Options = core.Options

// Info describes a running simulator. It is what cksim prints as its single
// JSON line on start.
type Info struct {
	APIURL             string            `json:"api_url"`
	APIKey             string            `json:"api_key"`
	SecretKey          string            `json:"secret_key"`
	AdminURL           string            `json:"admin_url"`
	ZoneID             string            `json:"zone_id"`
	ServiceOfferingID  string            `json:"service_offering_id"`
	KubernetesVersions map[string]string `json:"kubernetes_versions"`
	Keypair            string            `json:"keypair"`
	PrivateKeyFile     string            `json:"private_key_file"`

	Profile                    string            `json:"profile"`
	CloudStackVersion          string            `json:"cloudstack_version"`
	DisabledKubernetesVersions map[string]string `json:"disabled_kubernetes_versions"`
	LargeServiceOfferingID     string            `json:"large_service_offering_id"`
	SmallServiceOfferingID     string            `json:"small_service_offering_id"`
	NetworkOfferingID          string            `json:"network_offering_id"`
	IsolatedNetworkID          string            `json:"isolated_network_id"`
	VPCID                      string            `json:"vpc_id"`
	VPCTierNetworkID           string            `json:"vpc_tier_network_id"`
	VPCDenyTierNetworkID       string            `json:"vpc_deny_tier_network_id"`
	DomainID                   string            `json:"domain_id"`
	Account                    string            `json:"account"`
	ProjectID                  string            `json:"project_id"`
	TenantAccount              string            `json:"tenant_account"`
	TenantAPIKey               string            `json:"tenant_api_key"`
	TenantSecretKey            string            `json:"tenant_secret_key"`
	PublicIPBlock              string            `json:"public_ip_block"`
	// NodeTemplateID is a CKS-ready template (for_cks) for nodetemplates
	// and for VMs to join a cluster as external nodes.
	NodeTemplateID string `json:"node_template_id"`
	// PlainTemplateID is a template not marked for CKS: its VMs cannot join
	// a cluster.
	PlainTemplateID string `json:"plain_template_id"`
	// CNIConfigurationID is a registered CNI configuration (user data).
	CNIConfigurationID string `json:"cni_configuration_id"`
	// SharedNetworkID is a zone-wide Shared network whose VMs CKS reaches
	// directly; SharedNetworkCIDR is its loopback /24. Its guest IP range
	// is .2-.199, so .200-.253 are free for external_load_balancer_ip.
	SharedNetworkID   string `json:"shared_network_id"`
	SharedNetworkCIDR string `json:"shared_network_cidr"`
	// VPCACLID is a custom network ACL list of the VPC, with one item of its
	// own (tcp 443). Two tiers use it: VPCACLTierNetworkID, whose offering
	// is not in conserve mode (CKS forwards the API to the first control
	// node), and VPCACLTierLBNetworkID, whose offering is (CKS balances the
	// API). VPCTierNetworkID uses default_allow.
	VPCACLID              string `json:"vpc_acl_id"`
	VPCACLTierNetworkID   string `json:"vpc_acl_tier_network_id"`
	VPCACLTierLBNetworkID string `json:"vpc_acl_tier_lb_network_id"`

	// The names of the seeded zone, offerings, versions, networks and
	// project, which the look-up data sources take, beside their ids above.
	ZoneName                 string            `json:"zone_name"`
	ServiceOfferingName      string            `json:"service_offering_name"`
	LargeServiceOfferingName string            `json:"large_service_offering_name"`
	SmallServiceOfferingName string            `json:"small_service_offering_name"`
	KubernetesVersionNames   map[string]string `json:"kubernetes_version_names"`
	IsolatedNetworkName      string            `json:"isolated_network_name"`
	VPCTierNetworkName       string            `json:"vpc_tier_network_name"`
	SharedNetworkName        string            `json:"shared_network_name"`
	ProjectName              string            `json:"project_name"`
}

// Simulator is one simulated CloudStack management server.
type Simulator struct {
	// rt is what every area shares: the model and its lock, the random
	// sources, the clock, the job runner, the faults, the profile.
	rt *core.Runtime
	// The areas, each on the one below: cat the catalogue and accounts, net
	// the networks and rules, cl the CKS workers, VMs and state scanner.
	cat *catalog.Catalog
	net *network.Networks
	cl  *cluster.Workers
	// adm is the admin API over them all.
	adm *admin.Admin

	view atomic.Pointer[endpointView]

	keyPriv ed25519.PrivateKey
	keyPub  ssh.PublicKey
	keyPEM  []byte

	closeOnce sync.Once

	srvMu    sync.Mutex
	srv      *http.Server
	apiURL   string
	adminURL string
	keyFile  string
}

// New builds a simulator with its seed data. It reserves a loopback block
// 127.A.B.0/24 for public IP addresses but does not listen for API requests
// until Start.
func New(opts Options) (*Simulator, error) {
	prof, err := profiles.ByName(opts.Profile)
	if err != nil {
		return nil, err
	}
	if opts.MaxClusterSize <= 0 {
		opts.MaxClusterSize = 10
	}
	if opts.GuestCIDRPrefix == 0 {
		opts.GuestCIDRPrefix = network.DefaultGuestCIDRPrefix
	}
	if opts.GuestCIDRPrefix < network.MinGuestCIDRPrefix || opts.GuestCIDRPrefix > network.MaxGuestCIDRPrefix {
		return nil, fmt.Errorf("simulator: GuestCIDRPrefix must be between %d and %d", network.MinGuestCIDRPrefix, network.MaxGuestCIDRPrefix)
	}
	if opts.JobDuration < 0 || opts.JobQueueDelay < 0 {
		return nil, errors.New("simulator: JobDuration and JobQueueDelay must not be negative")
	}
	if err := validListOrder(opts.ListOrder); err != nil {
		return nil, err
	}
	if opts.WorkerRuleOrder != WorkerRuleOrderAscending && opts.WorkerRuleOrder != WorkerRuleOrderDescending {
		return nil, fmt.Errorf("simulator: unknown worker rule order %q (want %q or %q)", opts.WorkerRuleOrder,
			WorkerRuleOrderAscending, WorkerRuleOrderDescending)
	}
	if opts.ScannerInterval < 0 {
		return nil, errors.New("simulator: ScannerInterval must not be negative")
	}
	if opts.ScannerInterval == 0 {
		opts.ScannerInterval = DefaultScannerInterval
	}
	if opts.ISODownloadDuration < 0 {
		return nil, errors.New("simulator: ISODownloadDuration must not be negative")
	}
	if opts.ISODownloadDuration == 0 {
		opts.ISODownloadDuration = DefaultISODownloadDuration
	}
	s := &Simulator{
		rt: core.New(opts, prof),
	}
	s.cat = catalog.New(s.rt)
	net, err := network.New(s.cat, opts.PublicIPBlocks)
	if err != nil {
		return nil, err
	}
	s.net = net
	s.cl = cluster.New(net)
	s.adm = admin.New(s.cl)
	if err := s.generateKeyPair(); err != nil {
		net.ReleaseBlocks()
		return nil, err
	}
	s.rt.EP = endpoints.NewManager(endpointSource{s})
	s.rt.EP.SetClock(s.rt.Now) // node AGE follows the simulated clock
	s.rt.OnUnlock(s.publishView)
	s.rt.Lock()
	s.seed()
	s.rt.Unlock()
	interval := opts.ScannerInterval
	if opts.DisableScanner {
		interval = 0
	}
	s.cl.StartScanner(interval)
	return s, nil
}

// Start serves the CloudStack API on /client/api and the admin API on
// /admin/ at listen (host:port; port 0 picks a free one).
func (s *Simulator) Start(listen string) error {
	s.srvMu.Lock()
	defer s.srvMu.Unlock()
	if s.srv != nil {
		return errors.New("simulator: already started")
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("simulator: listen %s: %w", listen, err)
	}
	base := "http://" + ln.Addr().String()
	s.apiURL = base + "/client/api"
	s.adminURL = base + "/admin"
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return nil
}

// Handler is the simulator's HTTP handler (CloudStack API and admin API), for
// callers that run their own server.
func (s *Simulator) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/client/api", s.serveAPI)
	mux.HandleFunc("/client/api/", s.serveAPI)
	mux.Handle("/admin/", s.adm.Handler(func() any { return s.Info() }))
	return mux
}

// SetPrivateKeyFile records where the key pair's private key was written, for
// Info.
func (s *Simulator) SetPrivateKeyFile(path string) {
	s.srvMu.Lock()
	defer s.srvMu.Unlock()
	s.keyFile = path
}

// PrivateKeyPEM returns the OpenSSH PEM private key of the seeded key pair
// (cks-key). It is a secret.
func (s *Simulator) PrivateKeyPEM() []byte {
	return append([]byte(nil), s.keyPEM...)
}

// PublicKey returns the public key of the seeded key pair.
func (s *Simulator) PublicKey() ssh.PublicKey { return s.keyPub }

// Info returns the connection details and seed ids.
func (s *Simulator) Info() Info {
	s.srvMu.Lock()
	apiURL, adminURL, keyFile := s.apiURL, s.adminURL, s.keyFile
	s.srvMu.Unlock()
	s.rt.Lock()
	defer s.rt.Unlock()
	return s.infoLocked(apiURL, adminURL, keyFile)
}

// Close stops the HTTP server, waits for running jobs to stop and closes
// every endpoint listener.
func (s *Simulator) Close() error {
	s.closeOnce.Do(func() {
		s.rt.BeginShutdown()
		s.srvMu.Lock()
		srv := s.srv
		s.srvMu.Unlock()
		if srv != nil {
			// A short grace lets answers in flight finish. Clients that dial
			// ahead (concurrent readers) leave connections that never carry a
			// request; Shutdown would wait seconds for those, so close them.
			ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
			if err := srv.Shutdown(ctx); err != nil {
				_ = srv.Close()
			}
			cancel()
		}
		s.rt.WaitJobs()
		s.cl.WaitScanner()
		s.rt.EP.Close()
		s.net.ReleaseBlocks()
	})
	return nil
}
