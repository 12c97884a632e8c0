package simulator

import "strings"

// cmdListKubernetesClusters lists clusters in internal id order
// (KubernetesClusterManagerImpl.listKubernetesClusters: new
// Filter(KubernetesClusterVO.class, "id", true, ...)), removed ones
// excluded. name is an exact match (as the database compares it), keyword a
// substring.
func cmdListKubernetesClusters(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	filter, err := newListFilter(s, c, p, s.st.cluster)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, cl := range s.st.clusters {
		if cl.removed || filter.excludes(cl, cl.accountID) {
			continue
		}
		if name := p.str("name"); name != "" && !strings.EqualFold(cl.name, name) {
			continue
		}
		if st := p.str("state"); st != "" && !strings.EqualFold(cl.state, st) {
			continue
		}
		if ct := p.str("clustertype"); ct != "" && !strings.EqualFold(cl.clusterType, ct) {
			continue
		}
		if !matchesKeyword(p, cl.name) {
			continue
		}
		if err := s.cniConfigGone(cl, c); err != nil {
			return nil, err
		}
		items = append(items, s.renderCluster(cl, c))
	}
	return s.listBody(p, "kubernetescluster", items)
}

func cmdGetKubernetesClusterConfig(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	cl, err := s.requireCluster(c, p)
	if err != nil {
		return nil, err
	}
	if cl.state == stStarting {
		return nil, internalError("Setup is in progress for Kubernetes cluster : %s, config not available at this moment", cl.name)
	}
	if cl.removed || cl.kubeconfig == "" {
		return nil, internalError("Config not found for Kubernetes cluster : %s", cl.name)
	}
	return map[string]any{"clusterconfig": map[string]any{"id": cl.id, "name": cl.name, "configdata": cl.kubeconfig}}, nil
}
