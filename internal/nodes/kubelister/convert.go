package kubelister

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
)

// Role labels as kubectl reads them for its ROLES column.
const (
	roleLabelPrefix = "node-role.kubernetes.io/"
	legacyRoleLabel = "kubernetes.io/role"
)

func fromAPI(n *corev1.Node) nodes.Node {
	return nodes.Node{
		Name:    n.Name,
		Ready:   isReady(n),
		Roles:   roles(n.Labels),
		Version: n.Status.NodeInfo.KubeletVersion,
	}
}

func isReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// roles renders the role labels the way kubectl's ROLES column does: sorted,
// comma-separated, "<none>" when there are none.
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
		return nodes.NoRoles
	}
	slices.Sort(found)
	return strings.Join(slices.Compact(found), ",")
}
