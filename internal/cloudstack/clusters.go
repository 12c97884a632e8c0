package cloudstack

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"
)

// A CKS cluster in the API: its record, and the calls that list, create and
// change it with their parameters. A value of the cluster is a field of
// Cluster (the response), and an input a field of the parameters beside the
// call that sends it (create-only ones in cluster_extras.go).

// Cluster is a CKS cluster as listKubernetesClusters and the cluster jobs
// report it (KubernetesClusterResponse), decoded by the JSON names of its
// fields (UnmarshalJSON): a value the response carries is one field here,
// with its name.
type Cluster struct {
	ID                    string `json:"id"`
	Name                  string `json:"name"`
	Description           string `json:"description"`
	ZoneID                string `json:"zoneid"`
	ZoneName              string `json:"zonename"`
	KubernetesVersionID   string `json:"kubernetesversionid"`
	KubernetesVersionName string `json:"kubernetesversionname"`
	ServiceOfferingID     string `json:"serviceofferingid"`
	ControlOfferingID     string `json:"controlofferingid"`
	WorkerOfferingID      string `json:"workerofferingid"`
	EtcdOfferingID        string `json:"etcdofferingid"`
	// OfferingNames names the cluster's offerings by id, as the response
	// names them (serviceofferingname, controlofferingname, ...).
	OfferingNames map[string]string `json:"-"`
	TemplateID    string            `json:"templateid"`
	NetworkID     string            `json:"networkid"`
	Account       string            `json:"account"`
	DomainID      string            `json:"domainid"`
	ProjectID     string            `json:"projectid"`
	Keypair       string            `json:"keypair"`
	// ControlNodes is controlnodes, or masternodes, its deprecated alias.
	ControlNodes       int64  `json:"controlnodes"`
	EtcdNodes          int64  `json:"etcdnodes"`
	Size               int64  `json:"size"`
	State              string `json:"state"`
	Endpoint           string `json:"endpoint"`
	IPAddress          string `json:"ipaddress"`
	IPAddressID        string `json:"ipaddressid"`
	AutoscalingEnabled bool   `json:"autoscalingenabled"`
	MinSize            int64  `json:"minsize"`
	MaxSize            int64  `json:"maxsize"`
	ClusterType        string `json:"clustertype"`
	// Cores and Memory (MiB) are the capacity CloudStack accounts for the
	// cluster (KubernetesClusterVO), which it sends as strings.
	Cores  int64 `json:"cpunumber"`
	Memory int64 `json:"memory"`
	// CSIEnabled and CNIConfigurationID are the only create-only inputs
	// KubernetesClusterManagerImpl.createKubernetesClusterResponse reports
	// (4.22).
	CSIEnabled bool `json:"csienabled"`
	// CSIReported is whether the response had csienabled at all: servers
	// before 4.22 have no such field.
	CSIReported        bool   `json:"-"`
	CNIConfigurationID string `json:"cniconfigurationid"`
	Created            string `json:"created"`
	// VirtualMachines is the cluster's VM map in the order CKS made the
	// VMs, as far as the records tell it: by created time, then name, then
	// id (byCreation). The API lists it as the VM map's query gives it, by
	// map row (KubernetesClusterVmMapDaoImpl.listByClusterId), which is the
	// order CKS gave the nodes their SSH ports in, but it promises no order;
	// UnmarshalJSON sorts it, as collectPages sorts every list, so that the
	// same map reads the same from every server.
	VirtualMachines []ClusterVM `json:"virtualmachines"`
}

// UnmarshalJSON decodes a cluster of a response. cloudstack-go's
// KubernetesCluster reuses its VirtualMachine struct, which has no
// isetcdnode, isexternalnode or kubernetesnodeversion, so clusters are
// decoded here; numbers and flags may come as strings (decodeFields).
func (c *Cluster) UnmarshalJSON(b []byte) error {
	type fields Cluster // without this method
	members, err := decodeFields(b, (*fields)(c))
	if err != nil {
		return err
	}
	if c.ControlNodes == 0 {
		var masters flexInt
		if raw, ok := members["masternodes"]; ok && masters.UnmarshalJSON(raw) == nil {
			c.ControlNodes = int64(masters)
		}
	}
	slices.SortStableFunc(c.VirtualMachines, byCreation)
	raw, ok := members["csienabled"]
	c.CSIReported = ok && string(bytes.TrimSpace(raw)) != "null"
	for _, o := range []struct{ id, nameKey string }{{c.ServiceOfferingID, "serviceofferingname"},
		{c.ControlOfferingID, "controlofferingname"}, {c.WorkerOfferingID, "workerofferingname"}, {c.EtcdOfferingID, "etcdofferingname"}} {
		var name string
		if o.id == "" || json.Unmarshal(members[o.nameKey], &name) != nil || name == "" {
			continue
		}
		if c.OfferingNames == nil {
			c.OfferingNames = map[string]string{}
		}
		c.OfferingNames[o.id] = name
	}
	return nil
}

// byCreation orders VMs as CKS made them: by created time (to the second),
// then by name, then by id. The name orders the VMs of one role made in one
// second: CKS ends each node's name with
// Long.toHexString(System.currentTimeMillis()) (naming.hexSuffix, cited
// there), eleven hex digits that sort as the times do.
func byCreation(a, b ClusterVM) int {
	return cmp.Or(ParseCreated(a.Created).Compare(ParseCreated(b.Created)), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
}

// cloudStackTime is CloudStack's date format, yyyy-MM-dd'T'HH:mm:ssZ.
const cloudStackTime = "2006-01-02T15:04:05-0700"

// ParseCreated parses the created time of a record (to the second). An
// unparsable time is the zero time, which the drift comparison treats as
// old (hiding drift is worse than reporting it early) and byCreation sorts
// first.
func ParseCreated(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{cloudStackTime, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// ExternalNodes counts the external nodes of the VM map: VMs joined with
// addNodesToKubernetesCluster.
func (c *Cluster) ExternalNodes() int64 {
	var n int64
	for _, vm := range c.VirtualMachines {
		if vm.IsExternalNode {
			n++
		}
	}
	return n
}

// ManagedWorkers is the number of workers CKS made and scales: Size
// (node_count) counts the external nodes too, which
// addNodesToKubernetesCluster adds to it and a scale must keep.
func (c *Cluster) ManagedWorkers() int64 { return c.Size - c.ExternalNodes() }

// ClusterVM is one row of a cluster's VM map (KubernetesUserVmResponse).
// IsEtcdNode and IsExternalNode are decoded by this package because
// cloudstack-go's VirtualMachine drops them.
type ClusterVM struct {
	ID                  string `json:"id"`
	Name                string `json:"name"`
	DisplayName         string `json:"displayname"`
	State               string `json:"state"`
	Created             string `json:"created"`
	IPAddress           string `json:"ipaddress"`
	ServiceOfferingID   string `json:"serviceofferingid"`
	ServiceOfferingName string `json:"serviceofferingname"`
	TemplateID          string `json:"templateid"`
	IsEtcdNode          bool   `json:"isetcdnode"`
	IsExternalNode      bool   `json:"isexternalnode"`
	// KubernetesNodeVersion is the Kubernetes version of the node.
	KubernetesNodeVersion string `json:"kubernetesnodeversion"`
}

// UnmarshalJSON decodes a VM of the map; without ipaddress, its address is
// its default NIC's.
func (vm *ClusterVM) UnmarshalJSON(b []byte) error {
	type fields ClusterVM // without this method
	members, err := decodeFields(b, (*fields)(vm))
	if err != nil || vm.IPAddress != "" {
		return err
	}
	var nics []rawNic
	if raw, ok := members["nic"]; ok && json.Unmarshal(raw, &nics) == nil {
		vm.IPAddress = primaryNicIP(nics)
	}
	return nil
}

type rawNic struct {
	IPAddress string   `json:"ipaddress"`
	NetworkID string   `json:"networkid"`
	IsDefault flexBool `json:"isdefault"`
}

// primaryNicIP is the default NIC's address, else the first NIC's.
func primaryNicIP(nics []rawNic) string {
	for _, n := range nics {
		if n.IsDefault && n.IPAddress != "" {
			return n.IPAddress
		}
	}
	for _, n := range nics {
		if n.IPAddress != "" {
			return n.IPAddress
		}
	}
	return ""
}

const cmdListKubernetesClusters = "listKubernetesClusters"

// ListClustersParams filters listKubernetesClusters. Zero values are not sent.
// ListAll is sent as listall=true so that an admin sees every account's clusters.
type ListClustersParams struct {
	Ownership
	ID      string
	Name    string
	Keyword string
	ListAll bool
}

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
	var list struct {
		Count    flexInt   `json:"count"`
		Clusters []Cluster `json:"kubernetescluster"`
	}
	if err := decodeEnvelope(ex.body, &list); err != nil {
		return nil, 0, &Error{Command: cmdListKubernetesClusters, HTTPStatus: ex.status, Text: "cannot decode the cluster list", Err: err}
	}
	return list.Clusters, int(list.Count), nil
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

// CreateClusterParams are createKubernetesCluster's parameters.
type CreateClusterParams struct {
	Ownership
	Name                string
	Description         string
	ZoneID              string
	KubernetesVersionID string
	ServiceOfferingID   string
	// NodeOfferings maps a node type (control, worker, etcd) to an offering id.
	NodeOfferings    map[string]string
	ControlNodes     int64
	EtcdNodes        int64
	Size             int64
	NodeRootDiskSize int64
	Keypair          string
	NetworkID        string
	Hypervisor       string
	ClusterExtras
}

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

// ScaleClusterParams are scaleKubernetesCluster's parameters. Nil pointers are not sent.
type ScaleClusterParams struct {
	ID                 string
	ServiceOfferingID  string
	NodeOfferings      map[string]string
	Size               *int64
	NodeIDs            []string
	AutoscalingEnabled *bool
	MinSize            *int64
	MaxSize            *int64
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
