package drift

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/kubeversion"
)

// Where the versions come from, in CloudStack:
//   - the VM map's kubernetesnodeversion is the node_version column of the
//     VM's map row (KubernetesUserVmResponse.nodeVersion). The 4.21 database
//     upgrade fills it with the cluster's version
//     (Upgrade42010to42100.updateKubernetesNodeVersions); an upgrade writes,
//     node by node, what kubectl reports for the node, "v" prefix and all
//     (KubernetesClusterUtil.clusterNodeVersionMatches).
//   - the upgrade changes the cluster's own version only after every node
//     is upgraded, and skips the etcd VMs, which are marked for manual
//     upgrade (KubernetesClusterUpgradeWorker.upgradeCluster,
//     filterOutManualUpgradeNodesFromClusterUpgrade). So an upgrade that
//     fails halfway leaves its first nodes, and their map rows, ahead of the
//     cluster; etcd rows keep their version on every upgrade and are not
//     compared.
//   - a node's kubelet version is status.nodeInfo.kubeletVersion.

// compareVersions reports control and worker VMs whose kubelet, or whose
// map row, is on another Kubernetes version than the cluster. It needs the
// cluster's version; the kubelet's only once the nodes were compared.
func (c *comparison) compareVersions() {
	want, err := kubeversion.Parse(c.in.Cluster.KubernetesVersion)
	if err != nil {
		return // the version's name is not a semantic version
	}
	for _, v := range c.mapped {
		if v.etcd || !v.listed {
			continue
		}
		node, paired := c.nodeOf[v.id]
		var diffs, live []string
		var ahead, behind bool
		note := func(got, what string) {
			cmp, differs := versionDiffers(got, want)
			if !differs {
				return
			}
			diffs = append(diffs, fmt.Sprintf(what, strings.TrimSpace(got)))
			live = appendVersion(live, got)
			ahead, behind = ahead || cmp > 0, behind || cmp < 0
		}
		if paired {
			note(node.Version, "its kubelet reports %s")
		}
		note(v.nodeVersion, "the VM map records %s")
		if len(diffs) == 0 {
			continue
		}
		f := Finding{Kind: KindNodeVersionSkew, VMID: v.id, VMName: v.name, VMState: v.state,
			Attribute: "kubernetes_version", Live: live, Expected: []string{want.String()}}
		subject := v.label()
		if paired {
			f.NodeName = node.Name
			subject = fmt.Sprintf("Kubernetes node %s of %s", node.Name, v.label())
		}
		f.Message = fmt.Sprintf("%s is not on Kubernetes %s, the version of cluster %s: %s%s", subject, want,
			c.in.Cluster.Name, strings.Join(diffs, " and "), skewHint(ahead, behind))
		if v.external && behind && !ahead {
			// The cluster's version moves only once every node the upgrade
			// takes is upgraded: an external node left behind is one it
			// skipped, joined with manual_upgrade.
			f.Kind = KindManualUpgradePending
			f.Message = fmt.Sprintf("%s is an external node on an older version than cluster %s (%s): %s. CloudStack's "+
				"upgrade skips the external nodes joined with manual_upgrade (filterOutManualUpgradeNodesFromClusterUpgrade) "+
				"and changes the cluster's version only once every other node is upgraded, so this node waits for its owner "+
				"to upgrade it", subject, c.in.Cluster.Name, want, strings.Join(diffs, " and "))
		}
		c.add(f)
	}
}

// appendVersion adds a reported version to a sorted set, as the cluster's
// version is written (1.33.13, not v1.33.13) when it is a semantic version.
func appendVersion(set []string, got string) []string {
	got = strings.TrimSpace(got)
	if v, err := kubeversion.Parse(got); err == nil {
		got = v.String()
	}
	if !slices.Contains(set, got) {
		set = append(set, got)
		slices.Sort(set)
	}
	return set
}

// versionDiffers compares a reported version with the cluster's: the sign
// of the difference, and whether there is one. An empty version says
// nothing; one that is not a semantic version differs, with no direction.
func versionDiffers(got string, want kubeversion.Version) (int, bool) {
	got = strings.TrimSpace(got)
	if got == "" {
		return 0, false
	}
	v, err := kubeversion.Parse(got)
	if err != nil {
		return 0, true
	}
	cmp := v.Compare(want)
	return cmp, cmp != 0
}

func skewHint(ahead, behind bool) string {
	switch {
	case ahead:
		return ": a half-finished upgrade leaves its first nodes ahead of the cluster, whose version CloudStack " +
			"changes only once every node is upgraded; run the upgrade again once its cause is fixed"
	case behind:
		return ": the node was not upgraded with the cluster, or was re-joined from an older template"
	}
	return ""
}
