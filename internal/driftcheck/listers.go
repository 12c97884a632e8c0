package driftcheck

import (
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/kubelister"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

// ListerFactory builds the node listers a check uses. Tests and benchmarks
// replace it to observe or fake node listing.
type ListerFactory interface {
	// SSH returns a lister that runs kubectl on control node 1 over SSH.
	SSH(cfg sshlister.Config) (nodes.Lister, error)
	// Kubeconfig returns a lister that reads the Kubernetes API with the
	// kubeconfig, which is a secret. timeout bounds each request (0: default).
	Kubeconfig(kubeconfig []byte, timeout time.Duration) (nodes.Lister, error)
}

// DefaultListers builds the real SSH and Kubernetes API listers.
type DefaultListers struct{}

var _ ListerFactory = DefaultListers{}

// SSH implements ListerFactory with sshlister.
func (DefaultListers) SSH(cfg sshlister.Config) (nodes.Lister, error) {
	return sshlister.New(cfg)
}

// Kubeconfig implements ListerFactory with kubelister.
func (DefaultListers) Kubeconfig(kubeconfig []byte, timeout time.Duration) (nodes.Lister, error) {
	return kubelister.New(kubeconfig, kubelister.Options{Timeout: timeout})
}
