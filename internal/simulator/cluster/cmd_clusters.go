package cluster

import (
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// cmdListKubernetesClusters lists clusters in internal id order
// (KubernetesClusterManagerImpl.listKubernetesClusters: new
// Filter(KubernetesClusterVO.class, "id", true, ...)), removed ones
// excluded. name is an exact match (as the database compares it), keyword a
// substring.
func cmdListKubernetesClusters(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	filter, err := core.NewListFilter(s.Runtime, c, p, s.DB.Cluster)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, cl := range s.DB.Clusters {
		if cl.Removed || filter.Excludes(cl, cl.AccountID) {
			continue
		}
		if name := p.Str("name"); name != "" && !strings.EqualFold(cl.Name, name) {
			continue
		}
		if st := p.Str("state"); st != "" && !strings.EqualFold(cl.State, st) {
			continue
		}
		if ct := p.Str("clustertype"); ct != "" && !strings.EqualFold(cl.ClusterType, ct) {
			continue
		}
		if !wire.MatchesKeyword(p, cl.Name) {
			continue
		}
		if err := s.CNIConfigGone(cl, c); err != nil {
			return nil, err
		}
		items = append(items, s.renderCluster(cl, c))
	}
	return s.ListBody(p, "kubernetescluster", items)
}

func cmdGetKubernetesClusterConfig(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	cl, err := s.requireCluster(c, p)
	if err != nil {
		return nil, err
	}
	if cl.State == model.ClusterStarting {
		return nil, wire.InternalError("Setup is in progress for Kubernetes cluster : %s, config not available at this moment", cl.Name)
	}
	if cl.Removed || cl.Kubeconfig == "" {
		return nil, wire.InternalError("Config not found for Kubernetes cluster : %s", cl.Name)
	}
	return map[string]any{"clusterconfig": map[string]any{"id": cl.ID, "name": cl.Name, "configdata": cl.Kubeconfig}}, nil
}
