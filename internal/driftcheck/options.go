package driftcheck

import (
	"errors"
	"fmt"
	"strings"
	"time"

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

// Options are the settings of a check, shared by every cluster of a fleet.
type Options struct {
	NodeSource NodeSource
	// SSH says how to reach control node 1. Empty Host and zero Port mean
	// the address CloudStack itself uses for the cluster's network
	// (KubernetesClusterActionWorker.getKubernetesClusterServerIpSshPort);
	// the timeouts are NodeTimeout's.
	SSH sshlister.Config
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
		for _, p := range o.SSH.Validate() {
			problems = append(problems, p)
		}
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
