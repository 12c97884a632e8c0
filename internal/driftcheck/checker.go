package driftcheck

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// Checker runs drift checks. Its fields are read-only once a check runs, so
// one Checker may run many checks concurrently.
type Checker struct {
	// API is the CloudStack client; the checker only reads through it.
	API API
	// Listers builds the node listers; nil means DefaultListers.
	Listers ListerFactory
	// EtcdSSHStartPort is cloud.kubernetes.etcd.node.start.port; 0 means 50000.
	EtcdSSHStartPort int
	// Now is the time the grace period is measured against; nil means time.Now.
	Now func() time.Time
}

// Check checks one cluster. It returns an error when the cluster cannot be
// found or a CloudStack view cannot be read; a failure to list the
// Kubernetes nodes, or a rules view that cannot be built, is not an error
// but an incomplete result (Result.Incomplete, never in sync), with
// NodeCheckError set for the nodes (and Stats.Node.Err for callers that
// need the type).
func (c *Checker) Check(ctx context.Context, req Request) (drift.Result, Stats, error) {
	start := time.Now()
	m := newMeter()
	if strings.TrimSpace(req.ClusterID) == "" {
		return drift.Result{}, m.stats(start), errors.New("driftcheck: the cluster id is empty")
	}
	if err := req.Validate(); err != nil {
		return drift.Result{}, m.stats(start), err
	}
	idx, err := c.lookup(ctx, m, req.ClusterID)
	if err != nil {
		return drift.Result{}, m.stats(start), err
	}
	cl := idx.find(req.ClusterID)
	vms := func(ctx context.Context) ([]cloudstack.VirtualMachine, error) {
		return c.listOwnerVMs(ctx, m, ownerOf(cl))
	}
	res, node, err := c.checkCluster(ctx, m, cl, idx, req.Options, vms, nil)
	st := m.stats(start)
	st.ClusterName, st.Node = cl.Name, node
	return res, st, err
}

// lookup lists every cluster the credentials see, so that the maps of the
// other clusters are known from the same call. Project clusters are only
// listed with projectid=-1, which costs a second call when the cluster is
// not in the first list.
func (c *Checker) lookup(ctx context.Context, m *meter, id string) (*clusterIndex, error) {
	list, err := c.listClusters(ctx, m, "")
	if err != nil {
		return nil, err
	}
	idx := newClusterIndex(list)
	if idx.find(id) != nil {
		return idx, nil
	}
	projects, err := c.listClusters(ctx, m, allProjects)
	if err != nil {
		return nil, err
	}
	idx.add(projects)
	if idx.find(id) == nil {
		return nil, cloudstack.NewNotFoundError(cmdListClusters, "Kubernetes cluster", id)
	}
	return idx, nil
}

// listClusters is one metered listKubernetesClusters with listall: the
// accounts' clusters without projectID, else the project's (allProjects
// for every project's).
func (c *Checker) listClusters(ctx context.Context, m *meter, projectID string) ([]cloudstack.Cluster, error) {
	m.call(cmdListClusters)
	return c.API.ListKubernetesClusters(ctx, cloudstack.ListClustersParams{
		Ownership: cloudstack.Ownership{ProjectID: projectID}, ListAll: true})
}

// vmSource returns the VMs of the cluster's owner; a fleet shares one list
// per owner between its clusters.
type vmSource func(ctx context.Context) ([]cloudstack.VirtualMachine, error)

// checkCluster fetches the views of one cluster concurrently and compares
// them. Skipped clusters fetch nothing. bulk, when set, holds the rules of
// every non-project cluster of a fleet, listed once.
func (c *Checker) checkCluster(ctx context.Context, m *meter, cl *cloudstack.Cluster, idx *clusterIndex,
	opts Options, vms vmSource, bulk *bulkRules) (drift.Result, NodeCheck, error) {
	in := drift.Input{
		Cluster:     toDriftCluster(cl),
		Map:         toMap(cl),
		Now:         c.now(),
		GracePeriod: opts.GracePeriod,
	}
	node := NodeCheck{Source: opts.NodeSource}
	if res := drift.Compare(drift.Input{Cluster: in.Cluster}); res.Skipped {
		return drift.ApplyIgnores(res, cl.Name, opts.Ignore, in.Now), NodeCheck{Source: NodeSourceNone}, nil
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg       sync.WaitGroup
		vmList   []cloudstack.VirtualMachine
		vmErr    error
		rulesRes rulesResult
		rulesErr error
		nodeView *drift.NodeView
	)
	wg.Go(func() {
		if vmList, vmErr = vms(ctx); vmErr != nil {
			cancel(vmErr)
		}
	})
	if opts.CheckNetworkRules {
		wg.Go(func() {
			if rulesRes, rulesErr = c.rulesView(ctx, m, cl, opts, bulk); rulesErr != nil {
				cancel(rulesErr)
			}
		})
	}
	if opts.NodeSource != NodeSourceNone && !isStopped(cl) {
		wg.Go(func() { nodeView, node = c.nodeView(ctx, m, cl, opts) })
	}
	wg.Wait()
	if vmErr != nil || rulesErr != nil {
		// The first failure cancelled the other views; report it, not theirs.
		return drift.Result{}, node, context.Cause(ctx)
	}

	in.VMs = toVMs(vmList)
	in.MappedElsewhere = idx.mappedElsewhere(cl.ID, vmList)
	in.Nodes = nodeView
	if opts.NodeSource != NodeSourceNone && nodeView == nil {
		// A Stopped cluster's nodes are not compared: its VMs are off.
		in.Nodes = &drift.NodeView{}
	}
	in.Rules = rulesRes.view
	res := drift.Compare(in)
	return drift.ApplyIgnores(res, cl.Name, opts.Ignore, in.Now), node, nil
}

func (c *Checker) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Checker) listers() ListerFactory {
	if c.Listers != nil {
		return c.Listers
	}
	return DefaultListers{}
}

func isStopped(cl *cloudstack.Cluster) bool { return cl.State == clusterstate.Stopped }

// listOwnerVMs lists every VM of the cluster's owner (account or project).
func (c *Checker) listOwnerVMs(ctx context.Context, m *meter, owner cloudstack.Ownership) ([]cloudstack.VirtualMachine, error) {
	m.call(cmdListVMs)
	return c.API.ListVirtualMachines(ctx, cloudstack.ListVMsParams{Ownership: owner, ListAll: true})
}
