data "cks_kubernetes_version" "v133" {
  zone_id          = var.zone_id
  semantic_version = "1.33.13"
}

# One control node, three separate etcd nodes and two workers on an isolated
# network that CloudStack creates for the cluster.
resource "cks_cluster" "example" {
  name                  = "example"
  zone_id               = var.zone_id
  kubernetes_version_id = data.cks_kubernetes_version.v133.id
  service_offering_id   = var.service_offering_id
  keypair               = var.keypair

  control_nodes       = 1
  etcd_nodes          = 3
  size                = 2
  node_root_disk_size = 40

  # A cluster left in Alert with a stale size by the CloudStack 4.21-4.22.1.1
  # scale bug is recovered on the next apply; the recovery stops and starts
  # the cluster, which interrupts workloads, so it needs this opt-in.
  allow_restart_for_recovery = true

  timeouts = {
    create = "90m"
  }
}

variable "zone_id" {
  type = string
}

variable "service_offering_id" {
  type = string
}

variable "keypair" {
  description = "SSH key pair whose public key CKS authorises for user cloud on every node."
  type        = string
}

output "ssh_ports" {
  description = "Public SSH port of each node on the cluster's address."
  value       = { for n in cks_cluster.example.nodes : n.name => "${cks_cluster.example.ip_address}:${n.ssh_port}" }
}
