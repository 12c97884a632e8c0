// Package naming reproduces how CloudStack Kubernetes Service (CKS) names the
// VMs of a cluster, so that a VM or Kubernetes node name can be tied to a role
// (control, worker, etcd) of a known cluster.
//
// The rules follow the CloudStack source: the control/worker prefix of
// getKubernetesClusterNodeNamePrefix (current and pre-#10778 variants) and the
// etcd prefix of getEtcdNodeNameForCluster. Names decide roles only; cluster
// membership comes from the cluster's VM map.
package naming
