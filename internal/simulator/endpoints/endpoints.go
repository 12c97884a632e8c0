// Package endpoints runs the network side of the CKS simulator: real SSH
// servers behind forwarded public ports and a minimal Kubernetes API server
// per cluster, all on loopback addresses.
package endpoints

import (
	"time"

	"golang.org/x/crypto/ssh"
)

// Node is a registered Kubernetes node as kubectl shows it.
type Node struct {
	Name       string    // registered name: lowercased VM name, or an FQDN when overridden
	Ready      bool      // STATUS column: "Ready" vs "NotReady"
	Control    bool      // ROLES column: "control-plane" vs "<none>"
	Version    string    // e.g. "v1.33.13"
	Created    time.Time // for the AGE column and creationTimestamp
	InternalIP string
}

// Source is what the simulator model exposes to the endpoints. Safe for concurrent use.
type Source interface {
	// KubeNodes returns the cluster's registered Kubernetes nodes; ok is false for an unknown cluster.
	KubeNodes(clusterID string) (nodes []Node, ok bool)
	// AuthorizedKeys returns the public keys accepted for user "cloud" on the cluster's nodes.
	AuthorizedKeys(clusterID string) []ssh.PublicKey
}

// Target is the VM that a forwarded public port reaches.
type Target struct {
	ClusterID string
	VMID      string
	VMName    string
	Control   bool // kubectl (with admin kubeconfig) works only on control nodes
}
