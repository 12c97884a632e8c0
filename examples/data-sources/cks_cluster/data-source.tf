# Look a cluster up by name (or by id), for example to reach its nodes.
data "cks_cluster" "this" {
  name = var.cluster_name
}

variable "cluster_name" {
  type = string
}

output "control_node_ssh" {
  value = [for n in data.cks_cluster.this.nodes : "${data.cks_cluster.this.ip_address}:${n.ssh_port}" if n.role == "control"]
}
