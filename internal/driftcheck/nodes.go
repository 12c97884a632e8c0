package driftcheck

import (
	"context"
	"errors"
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
)

// nodeView lists the cluster's Kubernetes nodes. It never fails: an error
// becomes the view's Err, so the VM comparison still runs.
func (c *Checker) nodeView(ctx context.Context, m *meter, cl *cloudstack.Cluster, opts Options) (*drift.NodeView, NodeCheck) {
	node := NodeCheck{Source: opts.NodeSource}
	var lister nodes.Lister
	switch opts.NodeSource {
	case NodeSourceSSH:
		lister, node.Address, node.Err = c.sshLister(cl, opts)
	case NodeSourceKubeconfig:
		lister, node.Address, node.Err = c.kubeLister(ctx, m, cl, opts)
	default:
		node.Err = fmt.Errorf("unknown node source %q", opts.NodeSource)
	}
	if node.Err == nil {
		m.listing(opts.NodeSource)
		var list []nodes.Node
		if list, node.Err = lister.ListNodes(ctx); node.Err == nil {
			return &drift.NodeView{Nodes: toNodes(list)}, node
		}
	}
	return &drift.NodeView{Err: node.Err}, node
}

// sshLister targets control node 1 at the address CloudStack uses for the
// network type, or at the user's override.
func (c *Checker) sshLister(cl *cloudstack.Cluster, opts Options) (nodes.Lister, string, error) {
	host, port := sshAddress(cl)
	if opts.SSH.Host != "" {
		host = opts.SSH.Host
	}
	if opts.SSH.Port != 0 {
		port = opts.SSH.Port
	}
	if host == "" {
		return nil, "", errors.New("the cluster has no address to reach control node 1 over SSH " +
			"(no public IP, endpoint or control VM address); set ssh.host")
	}
	address := joinHostPort(host, port)
	cfg := opts.SSH
	cfg.Host, cfg.Port = host, port
	cfg.ConnectTimeout, cfg.HandshakeTimeout, cfg.CommandTimeout = opts.NodeTimeout, opts.NodeTimeout, opts.NodeTimeout
	lister, err := c.listers().SSH(cfg)
	return lister, address, err
}

// kubeLister reads the kubeconfig CloudStack keeps for the cluster. The
// kubeconfig is a secret: it goes to the lister and nowhere else.
func (c *Checker) kubeLister(ctx context.Context, m *meter, cl *cloudstack.Cluster, opts Options) (nodes.Lister, string, error) {
	m.call(cmdGetConfig)
	kubeconfig, err := c.API.GetKubernetesClusterConfig(ctx, cl.ID)
	if err != nil {
		return nil, "", fmt.Errorf("getting the kubeconfig: %w", err)
	}
	lister, err := c.listers().Kubeconfig([]byte(kubeconfig), opts.NodeTimeout)
	if err != nil {
		return nil, "", err
	}
	address := ""
	if s, ok := lister.(interface{ Server() string }); ok {
		address = s.Server()
	}
	return lister, address, nil
}
