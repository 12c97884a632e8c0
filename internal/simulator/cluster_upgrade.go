package simulator

import (
	"fmt"
	"strconv"
	"strings"
)

func cmdUpgradeKubernetesCluster(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	cl, err := s.requireCluster(c, p)
	if err != nil {
		return nil, err
	}
	if _, err := p.require("kubernetesversionid"); err != nil {
		return nil, err
	}
	target, err := resolveParam(p, "kubernetesversionid", s.st.version)
	if err != nil {
		return nil, err
	}
	return s.clusterJob(c, cl, "UpgradeKubernetesClusterCmd", 4,
		func(jr *jobRun) (any, *apiError) { return s.runUpgrade(jr, cl, target, c) })
}

// canUpgrade is KubernetesVersionManagerImpl.canUpgradeKubernetesVersion.
func canUpgrade(current, target string) error {
	switch d := compareSemver(target, current); {
	case d == 0:
		return serverErr("Kubernetes clusters can not be upgraded, current version: %s, upgrade version: %s", current, target)
	case d < 0:
		return serverErr("Kubernetes clusters can not be downgraded, current version: %s, upgrade version: %s", current, target)
	}
	cur, tgt := strings.Split(current, "."), strings.Split(target, ".")
	curMajor, _ := strconv.Atoi(cur[0])
	tgtMajor, _ := strconv.Atoi(tgt[0])
	curMinor, tgtMinor := 0, 0
	if len(cur) > 1 {
		curMinor, _ = strconv.Atoi(cur[1])
	}
	if len(tgt) > 1 {
		tgtMinor, _ = strconv.Atoi(tgt[1])
	}
	if tgtMajor != curMajor || tgtMinor-curMinor > 1 {
		return serverErr("Kubernetes clusters can be upgraded between next minor or patch version releases, current version: %s, upgrade version: %s", current, target)
	}
	return nil
}

// runUpgrade is KubernetesClusterManagerImpl.upgradeKubernetesCluster: the
// validation (530s, no state change), then KubernetesClusterUpgradeWorker.
// upgradeCluster: Running -> Upgrading; for each node VM i in map order
// (etcd VMs, and external nodes joined with manualupgrade, are marked for
// manual upgrade and skipped) drain it with
// kubectl over SSH through the cluster IP's port 2222, run the upgrade
// script over SSH through port 2222+i (the node's own forward), uncordon it
// and check that it is Ready on the new version; then -> Running. A failure
// leaves the nodes done so far upgraded and the cluster in Alert.
func (s *Simulator) runUpgrade(jr *jobRun, c *cluster, target *k8sVersion, who *caller) (any, *apiError) {
	jr.op = "upgrade"
	current := s.st.version(c.versionID)
	switch {
	case c.removed:
		return nil, internalError("Kubernetes cluster %s has been removed", c.name)
	case c.state != stRunning:
		return nil, internalError("Kubernetes cluster : %s is not in running state", c.name)
	case target.state != "Enabled":
		return nil, internalError("Kubernetes version ID: %s is in %s state", target.id, target.state)
	case target.isoState() != isoReady:
		return nil, internalError("Binaries ISO for Kubernetes version ID: %s is not in Ready state", target.id)
	case current == nil:
		return nil, internalError("Unable to find the current Kubernetes version of cluster %s", c.name)
	}
	if err := canUpgrade(current.semver, target.semver); err != nil {
		return nil, internalError("%s", err.Error())
	}
	server, ok := s.clusterServer(c)
	if !ok {
		return nil, internalError("Upgrade failed for Kubernetes cluster: %s, unable to retrieve associated public IP", c.String())
	}
	vms, rows := s.st.clusterVMs(c)
	var nodes []*vm
	var nodeRows []*mapRow
	for i, v := range vms {
		// filterOutManualUpgradeNodesFromClusterUpgrade: etcd VMs and
		// external nodes joined with manualupgrade are not upgraded, and the
		// index i below (the forward 2222+i) counts only the others.
		if !rows[i].manualUpgrade {
			nodes = append(nodes, v)
			nodeRows = append(nodeRows, rows[i])
		}
	}
	if len(nodes) == 0 {
		return nil, internalError("Upgrade failed for Kubernetes cluster: %s, unable to retrieve VMs for cluster", c.String())
	}
	s.transit(c, evUpgradeRequested)
	fail := func(err error, natural string) (any, *apiError) {
		s.transit(c, evOperationFailed)
		return nil, internalError("%s", failText(err, natural))
	}
	for i, v := range nodes {
		host := strings.ToLower(v.name)
		prefix := fmt.Sprintf("Failed to upgrade Kubernetes cluster : %s, ", c.name)
		if err := jr.step("node"); err != nil {
			return fail(err, prefix+"unable to upgrade Kubernetes node on VM : "+v.name)
		}
		if !s.controlSSHReachable(c) || s.st.nodeByName(c.id, host) == nil {
			return fail(nil, prefix+"unable to drain Kubernetes node on VM : "+v.name)
		}
		// runInstallScriptOnVM: scp and ssh to the cluster IP, port 2222+i.
		reached := s.nodeSSHTarget(server, v, i)
		if reached == nil {
			return fail(nil, prefix+"unable to upgrade Kubernetes node on VM : "+v.name)
		}
		if node := s.st.nodeOfVM(reached.id); node != nil {
			node.version = target.semver
		}
		if !s.controlSSHReachable(c) {
			return fail(nil, prefix+"unable to uncordon Kubernetes node on VM : "+v.name)
		}
		node := s.st.nodeByName(c.id, host)
		if node == nil || !s.nodeReady(node) {
			return fail(nil, prefix+"unable to get Kubernetes node on VM : "+v.name+" in ready state")
		}
		if node.version != target.semver {
			return fail(nil, fmt.Sprintf("%sunable to get Kubernetes node on VM : %s upgraded to version %s", prefix, v.name, target.semver))
		}
		// KubernetesClusterUtil.clusterNodeVersionMatches records what
		// kubectl prints in its VERSION column, "v" included.
		nodeRows[i].nodeVersion = "v" + target.semver
	}
	c.versionID = target.id
	s.transit(c, evOperationSucceeded)
	return map[string]any{"kubernetescluster": s.renderCluster(c, who)}, nil
}
