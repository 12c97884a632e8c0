package provider

import "sync"

// plannedDeletions are the clusters the plan being made deletes. A plan that
// deletes a Kubernetes version or a CNI configuration still used by a
// cluster fails, unless the same plan deletes that cluster first: as in
// `terraform destroy` of a configuration that holds both. Terraform plans,
// and applies, the delete of a resource only after the deletes of the
// resources that depend on it (its DestroyEdgeTransformer connects them
// from the dependencies the state records), so cks_cluster's ModifyPlan
// has recorded the cluster by the time the version's ModifyPlan asks. When
// no such dependency links them, the cluster is not recorded yet, the plan
// fails, and rightly: the apply would delete them in any order.
//
// Configure makes a new set for each graph walk (each plan or apply), so it
// holds only the plan being made.
type plannedDeletions struct {
	mu       sync.Mutex
	clusters map[string]bool
}

// addCluster records a cluster the plan deletes.
func (p *plannedDeletions) addCluster(id string) {
	if p == nil || id == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.clusters == nil {
		p.clusters = map[string]bool{}
	}
	p.clusters[id] = true
}

// hasCluster tells whether the plan deletes a cluster.
func (p *plannedDeletions) hasCluster(id string) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.clusters[id]
}
