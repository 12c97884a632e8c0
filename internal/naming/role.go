package naming

import "regexp"

// Role is the part a VM plays in a CKS cluster, as told by its name.
type Role string

// Roles of CKS node VMs. The API has no control-node flag, so control and
// worker VMs are told apart by "-control-" versus "-node-" in their names.
const (
	RoleControl Role = "control"
	RoleWorker  Role = "worker"
	RoleEtcd    Role = "etcd"
)

// hexSuffix is Long.toHexString(System.currentTimeMillis()), which CKS
// appends to a node's host name (a worker's in
// KubernetesClusterResourceModifierActionWorker.createKubernetesNode:
// "%s-node-%s"): lowercase, no leading zeros, 11 digits from late 2004
// until about the year 2527.
const hexSuffix = `[0-9a-f]{11}`

// Generic patterns for a VM of any cluster named by CloudStack 4.21 or later.
var (
	genericControl = regexp.MustCompile(`^[a-z][a-z0-9-]{0,42}-control-` + hexSuffix + `$`)
	genericWorker  = regexp.MustCompile(`^[a-z][a-z0-9-]{0,42}-node-` + hexSuffix + `$`)
	genericEtcd    = regexp.MustCompile(`^[A-Za-z0-9-]{1,40}-[1-9][0-9]*-` + hexSuffix + `$`)
)

// RoleOf tells the role of a VM of any cluster from its name alone, with the
// generic patterns of the current naming. It cannot tell which cluster the VM
// belongs to: use a Matcher and the VM map for that.
func RoleOf(vmName string) (Role, bool) {
	switch {
	case genericControl.MatchString(vmName):
		return RoleControl, true
	case genericWorker.MatchString(vmName):
		return RoleWorker, true
	case genericEtcd.MatchString(vmName):
		return RoleEtcd, true
	}
	return "", false
}
