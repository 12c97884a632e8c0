package cluster

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/catalog"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

func cmdUpgradeKubernetesCluster(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	cl, err := s.requireCluster(c, p)
	if err != nil {
		return nil, err
	}
	if _, err := p.Require("kubernetesversionid"); err != nil {
		return nil, err
	}
	target, err := wire.ResolveParam(p, "kubernetesversionid", s.DB.Version)
	if err != nil {
		return nil, err
	}
	return s.clusterJob(c, cl, "UpgradeKubernetesClusterCmd", 4,
		func(jr *core.JobRun) (any, *wire.APIError) { return s.runUpgrade(jr, cl, target, c) })
}

// canUpgrade is KubernetesVersionManagerImpl.canUpgradeKubernetesVersion.
func canUpgrade(current, target string) error {
	switch d := catalog.CompareSemver(target, current); {
	case d == 0:
		return wire.ServerErr("Kubernetes clusters can not be upgraded, current version: %s, upgrade version: %s", current, target)
	case d < 0:
		return wire.ServerErr("Kubernetes clusters can not be downgraded, current version: %s, upgrade version: %s", current, target)
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
		return wire.ServerErr("Kubernetes clusters can be upgraded between next minor or patch version releases, current version: %s, upgrade version: %s", current, target)
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
func (s *Workers) runUpgrade(jr *core.JobRun, c *model.Cluster, target *model.KubernetesVersion, who *core.Caller) (any, *wire.APIError) {
	jr.Op = "upgrade"
	current := s.DB.Version(c.VersionID)
	switch {
	case c.Removed:
		return nil, wire.InternalError("Kubernetes cluster %s has been removed", c.Name)
	case c.State != model.ClusterRunning:
		return nil, wire.InternalError("Kubernetes cluster : %s is not in running state", c.Name)
	case target.State != "Enabled":
		return nil, wire.InternalError("Kubernetes version ID: %s is in %s state", target.ID, target.State)
	case target.ISOState() != model.ISOReady:
		return nil, wire.InternalError("Binaries ISO for Kubernetes version ID: %s is not in Ready state", target.ID)
	case current == nil:
		return nil, wire.InternalError("Unable to find the current Kubernetes version of cluster %s", c.Name)
	}
	if err := canUpgrade(current.Semver, target.Semver); err != nil {
		return nil, wire.InternalError("%s", err.Error())
	}
	server, ok := s.clusterServer(c)
	if !ok {
		return nil, wire.InternalError("Upgrade failed for Kubernetes cluster: %s, unable to retrieve associated public IP", c.String())
	}
	vms, rows := s.DB.ClusterVMs(c)
	var nodes []*model.VM
	var nodeRows []*model.MapRow
	for i, v := range vms {
		// filterOutManualUpgradeNodesFromClusterUpgrade: etcd VMs and
		// external nodes joined with manualupgrade are not upgraded, and the
		// index i below (the forward 2222+i) counts only the others.
		if !rows[i].ManualUpgrade {
			nodes = append(nodes, v)
			nodeRows = append(nodeRows, rows[i])
		}
	}
	if len(nodes) == 0 {
		return nil, wire.InternalError("Upgrade failed for Kubernetes cluster: %s, unable to retrieve VMs for cluster", c.String())
	}
	s.transit(c, evUpgradeRequested)
	fail := func(err error, natural string) (any, *wire.APIError) {
		s.transit(c, evOperationFailed)
		return nil, wire.InternalError("%s", core.FailText(err, natural))
	}
	for i, v := range nodes {
		host := strings.ToLower(v.Name)
		prefix := fmt.Sprintf("Failed to upgrade Kubernetes cluster : %s, ", c.Name)
		if err := jr.Step("node"); err != nil {
			return fail(err, prefix+"unable to upgrade Kubernetes node on VM : "+v.Name)
		}
		if !s.ControlSSHReachable(c) || s.DB.NodeByName(c.ID, host) == nil {
			return fail(nil, prefix+"unable to drain Kubernetes node on VM : "+v.Name)
		}
		// runInstallScriptOnVM: scp and ssh to the cluster IP, port 2222+i.
		reached := s.nodeSSHTarget(server, v, i)
		if reached == nil {
			return fail(nil, prefix+"unable to upgrade Kubernetes node on VM : "+v.Name)
		}
		if node := s.DB.NodeOfVM(reached.ID); node != nil {
			node.Version = target.Semver
		}
		if !s.ControlSSHReachable(c) {
			return fail(nil, prefix+"unable to uncordon Kubernetes node on VM : "+v.Name)
		}
		node := s.DB.NodeByName(c.ID, host)
		if node == nil || !s.NodeReady(node) {
			return fail(nil, prefix+"unable to get Kubernetes node on VM : "+v.Name+" in ready state")
		}
		if node.Version != target.Semver {
			return fail(nil, fmt.Sprintf("%sunable to get Kubernetes node on VM : %s upgraded to version %s", prefix, v.Name, target.Semver))
		}
		// KubernetesClusterUtil.clusterNodeVersionMatches records what
		// kubectl prints in its VERSION column, "v" included.
		nodeRows[i].NodeVersion = "v" + target.Semver
	}
	c.VersionID = target.ID
	s.transit(c, evOperationSucceeded)
	return map[string]any{"kubernetescluster": s.renderCluster(c, who)}, nil
}
