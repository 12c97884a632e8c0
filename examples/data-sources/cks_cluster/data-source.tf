# Look a cluster up by name (or by id), for example to reach its nodes.
data "cks_cluster" "prod" {
  name = "prod"
}

output "control_node_ssh" {
  value = [for n in data.cks_cluster.prod.nodes : "${data.cks_cluster.prod.ip_address}:${n.ssh_port}" if n.role == "control"]
}
