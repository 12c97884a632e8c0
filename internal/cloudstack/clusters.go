package cloudstack

import (
	"context"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"
)

const cmdListKubernetesClusters = "listKubernetesClusters"

// ListKubernetesClusters lists clusters, all pages. VM maps keep isetcdnode
// and isexternalnode because the response is decoded here, not by cloudstack-go.
func (c *Client) ListKubernetesClusters(ctx context.Context, p ListClustersParams) ([]Cluster, error) {
	return collectPages(ctx, cmdListKubernetesClusters, c.pageSize, func(cl Cluster) string { return cl.ID },
		func(ctx context.Context, page, pageSize int) ([]Cluster, int, error) {
			return c.clusterPage(ctx, p, page, pageSize)
		})
}

func (c *Client) clusterPage(ctx context.Context, p ListClustersParams, page, pageSize int) ([]Cluster, int, error) {
	_, ex, err := call(ctx, c, cmdListKubernetesClusters, callOpts{read: true, raw: true},
		func(cs *csgo.CloudStackClient) (struct{}, error) {
			lp := cs.Kubernetes.NewListKubernetesClustersParams()
			setOwnership(lp, p.Ownership)
			if p.ID != "" {
				lp.SetId(p.ID)
			}
			if p.Name != "" {
				lp.SetName(p.Name)
			}
			if p.Keyword != "" {
				lp.SetKeyword(p.Keyword)
			}
			if p.ListAll {
				lp.SetListall(true)
			}
			lp.SetPage(page)
			lp.SetPagesize(pageSize)
			_, err := cs.Kubernetes.ListKubernetesClusters(lp)
			return struct{}{}, err
		})
	if err != nil {
		return nil, 0, err
	}
	var list rawClusterList
	if err := decodeEnvelope(ex.body, &list); err != nil {
		return nil, 0, &Error{Command: cmdListKubernetesClusters, HTTPStatus: ex.status, Text: "cannot decode the cluster list", Err: err}
	}
	out := make([]Cluster, 0, len(list.Clusters))
	for _, rc := range list.Clusters {
		out = append(out, rc.toCluster())
	}
	return out, int(list.Count), nil
}

// GetKubernetesCluster returns one cluster by id, or an *Error of kind
// KindNotFound when it never existed (431) or was removed (empty list).
//
// A list by id shows an admin every account's cluster, projects included,
// but shows a user only their own account's: project resources need a
// projectid (AccountManagerImpl.buildACLSearchParameters skips project
// resources only when no id is given, and narrows a user's lists to their
// account). So a miss is asked again with projectid=-1, every project the
// caller can see, which finds a project cluster without knowing its project.
func (c *Client) GetKubernetesCluster(ctx context.Context, id string) (*Cluster, error) {
	for _, scope := range []Ownership{{}, {ProjectID: allVisibleProjects}} {
		clusters, _, err := c.clusterPage(ctx, ListClustersParams{Ownership: scope, ID: id, ListAll: true}, 1, c.pageSize)
		if err != nil {
			return nil, err
		}
		for i := range clusters {
			if clusters[i].ID == id {
				return &clusters[i], nil
			}
		}
	}
	return nil, NewNotFoundError(cmdListKubernetesClusters, "Kubernetes cluster", id)
}

// allVisibleProjects is the projectid that lists the resources of every
// project the caller may see (AccountManagerImpl.buildACLSearchParameters:
// projectId -1, ListProjectResourcesOnly, or a user's permitted project
// accounts).
const allVisibleProjects = "-1"

// CreateKubernetesCluster starts the create job and returns the new
// cluster's id at once; the cluster exists even if the job later fails.
func (c *Client) CreateKubernetesCluster(ctx context.Context, p CreateClusterParams) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "createKubernetesCluster", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			cp := cs.Kubernetes.NewCreateKubernetesClusterParams(p.Description, p.KubernetesVersionID, p.Name,
				p.ServiceOfferingID, p.Size, p.ZoneID)
			// cloudstack-go always sends these; an empty value is not "unset" for the server.
			if p.Description == "" {
				cp.ResetDescription()
			}
			if p.ServiceOfferingID == "" {
				cp.ResetServiceofferingid()
			}
			if p.KubernetesVersionID == "" {
				cp.ResetKubernetesversionid()
			}
			setOwnership(cp, p.Ownership)
			if len(p.NodeOfferings) > 0 {
				cp.SetNodeofferings(p.NodeOfferings)
			}
			if p.ControlNodes > 0 {
				cp.SetControlnodes(p.ControlNodes)
			}
			if p.EtcdNodes > 0 {
				cp.SetEtcdnodes(p.EtcdNodes)
			}
			if p.NodeRootDiskSize > 0 {
				cp.SetNoderootdisksize(p.NodeRootDiskSize)
			}
			if p.Keypair != "" {
				cp.SetKeypair(p.Keypair)
			}
			if p.NetworkID != "" {
				cp.SetNetworkid(p.NetworkID)
			}
			if p.Hypervisor != "" {
				cp.SetHypervisor(p.Hypervisor)
			}
			setClusterExtras(cp, p.ClusterExtras)
			r, err := cs.Kubernetes.CreateKubernetesCluster(cp)
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{ID: r.Id, JobID: r.JobID}, nil
		})
	return ref, err
}

// ScaleKubernetesCluster starts a scale job. Validation errors arrive as a
// failed job (530), not from this call.
func (c *Client) ScaleKubernetesCluster(ctx context.Context, p ScaleClusterParams) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "scaleKubernetesCluster", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			sp := cs.Kubernetes.NewScaleKubernetesClusterParams(p.ID)
			if p.ServiceOfferingID != "" {
				sp.SetServiceofferingid(p.ServiceOfferingID)
			}
			if len(p.NodeOfferings) > 0 {
				sp.SetNodeofferings(p.NodeOfferings)
			}
			if p.Size != nil {
				sp.SetSize(*p.Size)
			}
			if len(p.NodeIDs) > 0 {
				sp.SetNodeids(p.NodeIDs)
			}
			if p.AutoscalingEnabled != nil {
				sp.SetAutoscalingenabled(*p.AutoscalingEnabled)
			}
			if p.MinSize != nil {
				sp.SetMinsize(*p.MinSize)
			}
			if p.MaxSize != nil {
				sp.SetMaxsize(*p.MaxSize)
			}
			r, err := cs.Kubernetes.ScaleKubernetesCluster(sp)
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{JobID: r.JobID}, nil
		})
	return ref, err
}

// UpgradeKubernetesCluster starts an upgrade job.
func (c *Client) UpgradeKubernetesCluster(ctx context.Context, id, versionID string) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "upgradeKubernetesCluster", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			r, err := cs.Kubernetes.UpgradeKubernetesCluster(cs.Kubernetes.NewUpgradeKubernetesClusterParams(id, versionID))
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{JobID: r.JobID}, nil
		})
	return ref, err
}

// StartKubernetesCluster starts a start job.
func (c *Client) StartKubernetesCluster(ctx context.Context, id string) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "startKubernetesCluster", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			r, err := cs.Kubernetes.StartKubernetesCluster(cs.Kubernetes.NewStartKubernetesClusterParams(id))
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{JobID: r.JobID}, nil
		})
	return ref, err
}

// StopKubernetesCluster starts a stop job.
func (c *Client) StopKubernetesCluster(ctx context.Context, id string) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "stopKubernetesCluster", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			r, err := cs.Kubernetes.StopKubernetesCluster(cs.Kubernetes.NewStopKubernetesClusterParams(id))
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{JobID: r.JobID}, nil
		})
	return ref, err
}

// DeleteKubernetesCluster starts a delete job.
func (c *Client) DeleteKubernetesCluster(ctx context.Context, id string) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "deleteKubernetesCluster", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			r, err := cs.Kubernetes.DeleteKubernetesCluster(cs.Kubernetes.NewDeleteKubernetesClusterParams(id))
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{JobID: r.JobID}, nil
		})
	return ref, err
}

// GetKubernetesClusterConfig returns the kubeconfig YAML, a secret: it is
// never logged.
func (c *Client) GetKubernetesClusterConfig(ctx context.Context, id string) (string, error) {
	cfg, _, err := call(ctx, c, "getKubernetesClusterConfig", callOpts{read: true},
		func(cs *csgo.CloudStackClient) (string, error) {
			gp := cs.Kubernetes.NewGetKubernetesClusterConfigParams()
			gp.SetId(id)
			r, err := cs.Kubernetes.GetKubernetesClusterConfig(gp)
			if err != nil {
				return "", err
			}
			return r.Configdata, nil
		})
	return cfg, err
}

// ListKubernetesSupportedVersions lists versions, all pages; zoneID may be empty.
func (c *Client) ListKubernetesSupportedVersions(ctx context.Context, zoneID string) ([]KubernetesVersion, error) {
	const command = "listKubernetesSupportedVersions"
	return collectPages(ctx, command, c.pageSize, func(v KubernetesVersion) string { return v.ID + "/" + v.ZoneID },
		func(ctx context.Context, page, pageSize int) ([]KubernetesVersion, int, error) {
			r, _, err := call(ctx, c, command, callOpts{read: true},
				func(cs *csgo.CloudStackClient) (*csgo.ListKubernetesSupportedVersionsResponse, error) {
					lp := cs.Kubernetes.NewListKubernetesSupportedVersionsParams()
					if zoneID != "" {
						lp.SetZoneid(zoneID)
					}
					lp.SetPage(page)
					lp.SetPagesize(pageSize)
					return cs.Kubernetes.ListKubernetesSupportedVersions(lp)
				})
			if err != nil {
				return nil, 0, err
			}
			out := make([]KubernetesVersion, 0, len(r.KubernetesSupportedVersions))
			for _, v := range r.KubernetesSupportedVersions {
				out = append(out, versionFrom(v))
			}
			return out, r.Count, nil
		})
}

// ownershipSetter is implemented by cloudstack-go params that carry ownership.
type ownershipSetter interface {
	SetAccount(string)
	SetDomainid(string)
	SetProjectid(string)
}

func setOwnership(p ownershipSetter, o Ownership) {
	if o.Account != "" {
		p.SetAccount(o.Account)
	}
	if o.DomainID != "" {
		p.SetDomainid(o.DomainID)
	}
	if o.ProjectID != "" {
		p.SetProjectid(o.ProjectID)
	}
}

// ListVisibleClusters lists every cluster the caller can see, each once:
// every account's it may list (listall; an admin's are all) and every
// project's (projectid -1), which listall alone skips
// (AccountManagerImpl.buildACLSearchParameters).
func ListVisibleClusters(ctx context.Context, r ClusterReader) ([]Cluster, error) {
	seen := map[string]bool{}
	var out []Cluster
	for _, scope := range []Ownership{{}, {ProjectID: allVisibleProjects}} {
		clusters, err := r.ListKubernetesClusters(ctx, ListClustersParams{Ownership: scope, ListAll: true})
		if err != nil {
			return nil, err
		}
		for _, c := range clusters {
			if !seen[c.ID] {
				seen[c.ID] = true
				out = append(out, c)
			}
		}
	}
	return out, nil
}
