package driftcheck

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

// NodeSource says where the Kubernetes nodes are read from.
type NodeSource string

// Node sources.
const (
	// NodeSourceSSH runs kubectl on control node 1 over SSH, as CKS does.
	NodeSourceSSH NodeSource = "ssh"
	// NodeSourceKubeconfig reads the nodes from the Kubernetes API with the
	// kubeconfig CloudStack returns (getKubernetesClusterConfig).
	NodeSourceKubeconfig NodeSource = "kubeconfig"
	// NodeSourceNone compares the VM map with the VMs and rules only.
	NodeSourceNone NodeSource = "none"
)

// NodeSources lists the valid node sources.
func NodeSources() []string {
	return []string{string(NodeSourceSSH), string(NodeSourceKubeconfig), string(NodeSourceNone)}
}

// SSHOptions say how to reach control node 1. Empty Host and zero Port mean
// the address CloudStack itself uses for the cluster's network
// (KubernetesClusterActionWorker.getKubernetesClusterServerIpSshPort).
type SSHOptions struct {
	// PrivateKey is the PEM private key of the cluster key pair. It is a
	// secret. Exactly one of PrivateKey, PrivateKeyFile and AgentSocket is set.
	PrivateKey []byte
	// PrivateKeyFile is the path of that key, read when the nodes are
	// listed and kept in memory only.
	PrivateKeyFile string
	// AgentSocket is the socket of an SSH agent holding that key
	// (SSH_AUTH_SOCK); the agent signs, the key never leaves it.
	AgentSocket string
	// User is the login user; empty means "cloud".
	User string
	// Host overrides the address to connect to.
	Host string
	// Port overrides the port to connect to.
	Port int
	// HostKey is the expected host key as an authorized_keys line.
	HostKey string
	// KnownHosts is known_hosts content.
	KnownHosts string
	// InsecureIgnoreHostKey accepts any host key.
	InsecureIgnoreHostKey bool
	// knownHosts is KnownHosts read once for a whole fleet.
	knownHosts *sshlister.KnownHosts
}

// Options are the settings of a check, shared by every cluster of a fleet.
type Options struct {
	NodeSource NodeSource
	SSH        SSHOptions
	// NodeTimeout bounds each step of listing the nodes (SSH connect,
	// handshake and command, or each Kubernetes API request); zero means the
	// listers' defaults.
	NodeTimeout time.Duration
	// GracePeriod is how long a new VM may be unmapped or not yet a node
	// before it is reported. Zero means no grace at all; CloudStack's own
	// check uses drift.DefaultGracePeriod.
	GracePeriod time.Duration
	// CheckNetworkRules compares the SSH network rules with the VM map.
	CheckNetworkRules bool
	// SSHCIDRs are the source CIDRs the provider keeps on the clusters' SSH
	// firewall rules (the cks_cluster resource's ssh_cidrs); empty means
	// 0.0.0.0/0, CKS's own.
	SSHCIDRs []string
	// APICIDRs are the source CIDRs the provider keeps on the clusters' API
	// firewall rule (the cks_cluster resource's api_cidrs); empty means
	// 0.0.0.0/0, CKS's own.
	APICIDRs []string
	// Ignore are the rules that accept known findings
	// (drift.CompileIgnore builds them).
	Ignore []drift.IgnoreRule
}

// Request is one cluster check.
type Request struct {
	ClusterID string
	Options
}

// Validate reports settings that can never work, before any request is
// made. Its messages never contain the private key.
func (o Options) Validate() error {
	var problems []error
	switch o.NodeSource {
	case NodeSourceSSH:
		problems = append(problems, o.SSH.validate()...)
	case NodeSourceKubeconfig, NodeSourceNone:
	default:
		problems = append(problems, fmt.Errorf("node source %q is not one of ssh, kubeconfig, none", o.NodeSource))
	}
	if o.GracePeriod < 0 {
		problems = append(problems, errors.New("the grace period must not be negative"))
	}
	if o.NodeTimeout < 0 {
		problems = append(problems, errors.New("the node timeout must not be negative"))
	}
	for i, r := range o.Ignore {
		if strings.TrimSpace(r.Reason) == "" {
			problems = append(problems, fmt.Errorf("ignore rule %d has no reason", i))
		}
	}
	return errors.Join(problems...)
}

func (s SSHOptions) validate() []error {
	var problems []error
	credentials := 0
	for _, set := range []bool{len(s.PrivateKey) > 0, s.PrivateKeyFile != "", s.AgentSocket != ""} {
		if set {
			credentials++
		}
	}
	switch {
	case credentials == 0:
		problems = append(problems, errors.New("SSH needs the private key of the cluster key pair: "+
			"a private key, a private key file or an SSH agent"))
	case credentials > 1:
		problems = append(problems, errors.New("set only one of the SSH private key, the private key file and the SSH agent"))
	case len(s.PrivateKey) > 0:
		if _, err := ssh.ParsePrivateKey(s.PrivateKey); err != nil {
			var passErr *ssh.PassphraseMissingError
			if errors.As(err, &passErr) {
				problems = append(problems, errors.New("the SSH private key is protected by a passphrase, which is not supported"))
			} else {
				// x/crypto describes the format problem, never the key material.
				problems = append(problems, fmt.Errorf("the SSH private key is not a valid PEM private key: %w", err))
			}
		}
	case s.PrivateKeyFile != "":
		if _, err := sshlister.ReadPrivateKeyFile(s.PrivateKeyFile); err != nil {
			problems = append(problems, fmt.Errorf("the SSH private key file: %w", err))
		}
	}
	if s.Port < 0 || s.Port > 65535 {
		problems = append(problems, fmt.Errorf("SSH port %d is out of range 1-65535", s.Port))
	}
	sources := 0
	if s.HostKey != "" {
		sources++
		if _, _, _, _, err := ssh.ParseAuthorizedKey([]byte(s.HostKey)); err != nil {
			problems = append(problems, fmt.Errorf("the SSH host key is not an authorized_keys style line such as \"ssh-ed25519 AAAA...\": %w", err))
		}
	}
	if s.KnownHosts != "" {
		sources++
		if err := sshlister.ValidateKnownHosts(s.KnownHosts); err != nil {
			problems = append(problems, fmt.Errorf("the SSH known_hosts is not valid: %w", err))
		}
	}
	switch {
	case sources > 1:
		problems = append(problems, errors.New("set only one of the SSH host key and known_hosts"))
	case sources == 1 && s.InsecureIgnoreHostKey:
		problems = append(problems, errors.New("insecure_ignore_host_key conflicts with a host key or known_hosts"))
	case sources == 0 && !s.InsecureIgnoreHostKey:
		problems = append(problems, errors.New("SSH needs a host key or known_hosts to verify control node 1, "+
			"or insecure_ignore_host_key = true to skip the verification"))
	}
	return problems
}
