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

func cmdListKubernetesSupportedVersions(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	if p.has("minimumsemanticversion") && p.has("minimumkubernetesversionid") {
		return nil, invalidParam("Both parameters minimumsemanticversion, minimumkubernetesversionid can not be passed together")
	}
	byID, err := resolveParam(p, "id", s.st.version)
	if err != nil {
		return nil, err
	}
	if _, err := resolveParam(p, "zoneid", s.st.zone); err != nil {
		return nil, err
	}
	minVersion, err := resolveParam(p, "minimumkubernetesversionid", s.st.version)
	if err != nil {
		return nil, err
	}
	minSemver := p.str("minimumsemanticversion")
	if minVersion != nil {
		minSemver = minVersion.semver
	}
	items := []map[string]any{}
	for _, v := range s.st.versions {
		switch {
		case byID != nil && v != byID,
			!c.isAdmin() && v.state != "Enabled",
			minSemver != "" && compareSemver(v.semver, minSemver) < 0,
			p.has("arch") && !strings.EqualFold(p.str("arch"), "x86_64"),
			!matchesKeyword(p, v.name):
			continue
		}
		items = append(items, s.renderVersion(v))
	}
	return s.listBody(p, "kubernetessupportedversion", items)
}

func (s *Simulator) renderVersion(v *k8sVersion) map[string]any {
	out := map[string]any{
		"id":                  v.id,
		"name":                v.name,
		"semanticversion":     v.semver,
		"isoid":               v.isoID,
		"isoname":             v.isoName,
		"isostate":            v.isoState,
		"arch":                "x86_64",
		"supportsha":          v.supportsHA,
		"supportsautoscaling": v.supportsAutoscaling,
		"state":               v.state,
		"mincpunumber":        v.minCPU,
		"minmemory":           v.minMemory,
		"created":             csTime(v.created),
		"directdownload":      false,
	}
	if z := s.st.zone(s.st.seedIDs.zone); z != nil {
		out["zoneid"] = z.id
		out["zonename"] = z.name
	}
	return out
}

// cmdListAsyncJobs is ListAsyncJobsCmd (QueryManagerImpl.searchForAsyncJobs):
// the jobs of the caller's account, or with listall every account's for an
// admin, oldest first.
func cmdListAsyncJobs(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	scope, err := s.listScope(c, p)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, j := range s.st.jobs {
		if scope(j.accountID) {
			items = append(items, s.renderJob(j))
		}
	}
	return s.listBody(p, "asyncjobs", items)
}

func cmdQueryAsyncJobResult(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	if _, err := p.require("jobid"); err != nil {
		return nil, err
	}
	j, err := resolveParam(p, "jobid", s.st.job)
	if err != nil {
		return nil, err
	}
	if err := s.checkAccess(c, j.accountID, "async job "+j.id); err != nil {
		return nil, err
	}
	return s.renderJob(j), nil
}
