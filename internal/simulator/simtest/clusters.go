package simtest

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// DefaultKubernetesVersion is the seeded version clusters get unless the
// parameters name another.
const DefaultKubernetesVersion = "1.33.13"

// FastWait polls the simulator's jobs, which finish in milliseconds.
var FastWait = cloudstack.WaitOptions{Unit: time.Millisecond}

// jobTimeout bounds every job a helper waits for.
const jobTimeout = time.Minute

// VersionID returns the id of a seeded Kubernetes version such as "1.33.13".
func (e *Env) VersionID(semver string) string {
	e.t.Helper()
	id, ok := e.Info.KubernetesVersions[semver]
	if !ok {
		e.t.Fatalf("the simulator has no Kubernetes version %s (has %v)", semver, e.Info.KubernetesVersions)
	}
	return id
}

// CreateCluster creates a cluster through the plain API, as another client
// would, and waits for its job. Zero parameters take the seeded zone,
// service offering, Kubernetes version and key pair, one control node and
// one worker. It returns the cluster's id, which is set even when the job
// failed.
func (e *Env) CreateCluster(ctx context.Context, p cloudstack.CreateClusterParams) (string, error) {
	p.ZoneID = cmp.Or(p.ZoneID, e.Info.ZoneID)
	p.ServiceOfferingID = cmp.Or(p.ServiceOfferingID, e.Info.ServiceOfferingID)
	p.KubernetesVersionID = cmp.Or(p.KubernetesVersionID, e.Info.KubernetesVersions[DefaultKubernetesVersion])
	p.Keypair = cmp.Or(p.Keypair, e.Info.Keypair)
	p.ControlNodes = max(p.ControlNodes, 1)
	p.Size = max(p.Size, 1)
	ref, err := e.API.CreateKubernetesCluster(ctx, p)
	if err != nil {
		return "", err
	}
	return ref.ID, e.waitJob(ctx, "createKubernetesCluster", ref.JobID)
}

// NewCluster is CreateCluster for a cluster the test needs running: it
// fails the test otherwise and returns the cluster as the API lists it.
func (e *Env) NewCluster(p cloudstack.CreateClusterParams) *cloudstack.Cluster {
	e.t.Helper()
	id, err := e.CreateCluster(e.t.Context(), p)
	if err != nil {
		e.t.Fatalf("creating cluster %s: %v", p.Name, err)
	}
	return e.Cluster(id)
}

// Scale changes a cluster's size through the plain API, as another client
// would, and returns the failure of its job, if any.
func (e *Env) Scale(id string, size int64) error {
	return e.ScaleWith(cloudstack.ScaleClusterParams{ID: id, Size: &size})
}

// ScaleWith scales through the plain API with the given parameters and
// waits for the job.
func (e *Env) ScaleWith(p cloudstack.ScaleClusterParams) error {
	ctx := e.t.Context()
	ref, err := e.API.ScaleKubernetesCluster(ctx, p)
	if err != nil {
		return err
	}
	return e.waitJob(ctx, "scaleKubernetesCluster", ref.JobID)
}

// WaitJob waits for an async job and returns its failure, if any.
func (e *Env) WaitJob(jobID string) error { return e.waitJob(e.t.Context(), "", jobID) }

// waitJob waits for a job that command started ("" when unknown).
func (e *Env) waitJob(ctx context.Context, command, jobID string) error {
	ctx, cancel := context.WithTimeout(ctx, jobTimeout)
	defer cancel()
	opts := FastWait
	opts.Command = command
	_, err := cloudstack.WaitForJob(ctx, e.API, jobID, opts)
	return err
}

// Cluster reads a cluster back, project clusters included.
func (e *Env) Cluster(id string) *cloudstack.Cluster {
	e.t.Helper()
	ctx := e.t.Context()
	c, err := e.API.GetKubernetesCluster(ctx, id)
	if err == nil {
		return c
	}
	if !cloudstack.IsNotFound(err) {
		e.t.Fatalf("reading cluster %s: %v", id, err)
	}
	// Project clusters are listed only with projectid=-1.
	list, err := e.API.ListKubernetesClusters(ctx, cloudstack.ListClustersParams{ID: id, Ownership: cloudstack.Ownership{ProjectID: "-1"}})
	if err != nil {
		e.t.Fatalf("reading cluster %s: %v", id, err)
	}
	for i := range list {
		if list[i].ID == id {
			return &list[i]
		}
	}
	e.t.Fatalf("cluster %s not found", id)
	return nil
}

// NthWorker returns the cluster's nth mapped worker VM (from 0), counting
// by SSH port, whatever order the API lists the VM map in.
func (e *Env) NthWorker(cl *cloudstack.Cluster, nth int) cloudstack.ClusterVM {
	e.t.Helper()
	port := map[string]int{}
	for _, pf := range e.Forwards(cl) {
		port[pf.VirtualMachineID] = pf.PublicPort
	}
	var workers []cloudstack.ClusterVM
	for _, vm := range cl.VirtualMachines {
		if strings.Contains(vm.Name, "-node-") {
			workers = append(workers, vm)
		}
	}
	if nth >= len(workers) {
		e.t.Fatalf("cluster %s has no worker #%d", cl.Name, nth+1)
	}
	slices.SortFunc(workers, func(a, b cloudstack.ClusterVM) int { return cmp.Compare(port[a.ID], port[b.ID]) })
	return workers[nth]
}
