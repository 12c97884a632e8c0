// Package nodes holds the types shared by the Kubernetes node listers: the
// node as the drift check sees it, the interface every lister satisfies, and
// FromAPI, which reduces the core/v1 Node both listers decode.
package nodes

import "context"

// Node is a registered Kubernetes node, reduced to what a drift check compares.
type Node struct {
	// Name is the registered node name (metadata.name), as kubectl prints it.
	Name string
	// Ready is true only when the node's Ready condition is True.
	Ready bool
	// Roles is the comma-separated role list as kubectl shows it, "<none>" when the node has no role.
	Roles string
	// Version is the kubelet version, for example "v1.33.13".
	Version string
}

// Lister lists the nodes of one Kubernetes cluster.
type Lister interface {
	// ListNodes returns the cluster's registered nodes in the order the source reports them.
	ListNodes(ctx context.Context) ([]Node, error)
}

// NoRoles is the Roles value of a node without any role, matching kubectl's table.
const NoRoles = "<none>"
