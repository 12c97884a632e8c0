package cloudstack

import (
	"context"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"
)

// External nodes (CloudStack 4.21+): VMs a user made, joined to a CKS
// cluster as workers.

// AddNodesParams are addNodesToKubernetesCluster's parameters.
type AddNodesParams struct {
	ClusterID string
	VMIDs     []string
	// ManualUpgrade excludes the nodes from the cluster's upgrades.
	ManualUpgrade bool
	// MountCKSISOOnVR serves the Kubernetes binaries ISO from the network's
	// virtual router instead of attaching it to the nodes (VMware only).
	MountCKSISOOnVR bool
}

// AddNodesToKubernetesCluster starts the job that joins VMs to a cluster.
// The job succeeds even when CloudStack skipped a VM (it validates them
// quietly and ignores its worker's result): read the cluster's VM map to
// know which joined.
func (c *Client) AddNodesToKubernetesCluster(ctx context.Context, p AddNodesParams) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "addNodesToKubernetesCluster", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			ap := cs.Kubernetes.NewAddNodesToKubernetesClusterParams(p.ClusterID, p.VMIDs)
			if p.ManualUpgrade {
				ap.SetManualupgrade(true)
			}
			if p.MountCKSISOOnVR {
				ap.SetMountcksisoonvr(true)
			}
			r, err := cs.Kubernetes.AddNodesToKubernetesCluster(ap)
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{JobID: r.JobID}, nil
		})
	return ref, err
}

// RemoveNodesFromKubernetesCluster starts the job that takes VMs out of a
// cluster; the VMs keep running. CloudStack lowers the cluster's size for
// every VM it processes, in the cluster or not: name only members.
func (c *Client) RemoveNodesFromKubernetesCluster(ctx context.Context, clusterID string, vmIDs []string) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "removeNodesFromKubernetesCluster", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			r, err := cs.Kubernetes.RemoveNodesFromKubernetesCluster(cs.Kubernetes.NewRemoveNodesFromKubernetesClusterParams(clusterID, vmIDs))
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{JobID: r.JobID}, nil
		})
	return ref, err
}

// GetVirtualMachine returns one VM by id, from the caller's accounts or, on
// a miss, from every project they see; an *Error of kind KindNotFound when
// it does not exist (or was expunged).
func (c *Client) GetVirtualMachine(ctx context.Context, id string) (*VirtualMachine, error) {
	for _, scope := range []Ownership{{}, {ProjectID: allVisibleProjects}} {
		vms, err := c.ListVirtualMachines(ctx, ListVMsParams{Ownership: scope, IDs: []string{id}, ListAll: true})
		if err != nil && !IsNotFound(err) {
			return nil, err
		}
		for i := range vms {
			if vms[i].ID == id {
				return &vms[i], nil
			}
		}
	}
	return nil, NewNotFoundError("listVirtualMachines", "virtual machine", id)
}

// GetTemplate returns one template by id with its for_cks flag
// (listTemplates sets forcks only with details=all,
// TemplateJoinDaoImpl.newTemplateResponse), or an *Error of kind
// KindNotFound. It asks for the templates the caller may deploy from
// (executable), then those of every project it sees, then, for an
// administrator, all of them.
func (c *Client) GetTemplate(ctx context.Context, id string) (*Template, error) {
	const command = "listTemplates"
	scopes := []struct{ filter, projectID string }{{"executable", ""}, {"executable", allVisibleProjects}, {"all", ""}}
	var firstErr error
	for _, scope := range scopes {
		r, _, err := call(ctx, c, command, callOpts{read: true},
			func(cs *csgo.CloudStackClient) (*csgo.ListTemplatesResponse, error) {
				lp := cs.Template.NewListTemplatesParams(scope.filter)
				lp.SetId(id)
				lp.SetDetails([]string{"all"})
				if scope.projectID != "" {
					lp.SetProjectid(scope.projectID)
				}
				return cs.Template.ListTemplates(lp)
			})
		if err != nil {
			if firstErr == nil && !IsNotFound(err) {
				firstErr = err
			}
			continue
		}
		for _, t := range r.Templates {
			if t.Id == id {
				return &Template{ID: t.Id, Name: t.Name, ForCKS: t.Forcks}, nil
			}
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, NewNotFoundError(command, "template", id)
}

// TagVirtualMachine starts the job that adds resource tags to a VM.
func (c *Client) TagVirtualMachine(ctx context.Context, vmID string, tags map[string]string) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "createTags", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			r, err := cs.Resourcetags.CreateTags(cs.Resourcetags.NewCreateTagsParams([]string{vmID}, "UserVm", tags))
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{JobID: r.JobID}, nil
		})
	return ref, err
}

// UntagVirtualMachine starts the job that deletes a VM's resource tags
// with the given keys and values. The values are sent as they are: a tag
// named without one would depend on how the server reads an empty value.
func (c *Client) UntagVirtualMachine(ctx context.Context, vmID string, tags map[string]string) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "deleteTags", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			p := cs.Resourcetags.NewDeleteTagsParams([]string{vmID}, "UserVm")
			p.SetTags(tags)
			r, err := cs.Resourcetags.DeleteTags(p)
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{JobID: r.JobID}, nil
		})
	return ref, err
}
