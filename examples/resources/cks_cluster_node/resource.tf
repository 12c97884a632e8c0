# Join a VM you deployed (with a GPU offering, for example) to an existing
# cluster as an external worker. The VM must be running, have its default
# NIC in the cluster's network and come from a template marked for CKS.
data "cks_cluster" "prod" {
  name = var.cluster_name
}

resource "cks_cluster_node" "gpu" {
  cluster_id = data.cks_cluster.prod.id
  vm_id      = var.gpu_vm_id

  # The cluster's upgrades skip this node; it stays on its Kubernetes
  # version until you upgrade it yourself.
  manual_upgrade = true

  timeouts = {
    create = "30m"
  }
}

variable "cluster_name" {
  type = string
}

variable "gpu_vm_id" {
  description = "Id of the VM to join."
  type        = string
}

output "gpu_node_ssh" {
  value = "${data.cks_cluster.prod.ip_address}:${cks_cluster_node.gpu.ssh_port}"
}
