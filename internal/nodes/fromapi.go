package nodes

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Role labels as kubectl reads them for its ROLES column.
const (
	roleLabelPrefix = "node-role.kubernetes.io/"
	legacyRoleLabel = "kubernetes.io/role"
)

// FromAPI reduces a core/v1 Node, from the Kubernetes API or from
// `kubectl get nodes -o json`, to what kubectl's table shows: the name, the
// Ready condition, the roles and the kubelet version.
func FromAPI(n *corev1.Node) Node {
	return Node{
		Name:    n.Name,
		Ready:   isReady(n),
		Roles:   roles(n.Labels),
		Version: n.Status.NodeInfo.KubeletVersion,
	}
}

// isReady is true only when the Ready condition is True; False, Unknown (the
// kubelet stopped reporting) and a missing condition are all not ready.
func isReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// roles renders the role labels the way kubectl's ROLES column does: sorted,
// comma-separated, NoRoles when there are none.
func roles(labels map[string]string) string {
	var found []string
	for k, v := range labels {
		switch {
		case strings.HasPrefix(k, roleLabelPrefix):
			if role := strings.TrimPrefix(k, roleLabelPrefix); role != "" {
				found = append(found, role)
			}
		case k == legacyRoleLabel && v != "":
			found = append(found, v)
		}
	}
	if len(found) == 0 {
		return NoRoles
	}
	slices.Sort(found)
	return strings.Join(slices.Compact(found), ",")
}
