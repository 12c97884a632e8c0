package clusterops

import (
	"context"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
)

// CSIUnsupported returns the CloudStack version when it has no CKS CSI
// driver support and would ignore enablecsi: the CSI driver and the
// cluster's csi_enabled column came with 4.22.0 (apache/cloudstack#11419,
// KubernetesClusterManagerImpl.createManagedKubernetesCluster). It returns
// "" when the version supports it or cannot be read (the create then tells).
func (e *Engine) CSIUnsupported(ctx context.Context) string {
	version, err := e.cloudStackVersion(ctx)
	if err != nil {
		return ""
	}
	if clusterview.LacksCSI(version) {
		return version
	}
	return ""
}
