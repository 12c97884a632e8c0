# Names in, ids out: the zone, the offering, the network and the Kubernetes
# version are looked up by name; each look-up fails, naming what it found,
# unless exactly one matches.
data "cks_zone" "this" {
  name = var.zone
}

data "cks_service_offering" "medium" {
  name    = var.service_offering
  zone_id = data.cks_zone.this.id
}

data "cks_network" "k8s" {
  name    = var.network
  zone_id = data.cks_zone.this.id
}

# The newest Enabled 1.33 release of the zone.
data "cks_kubernetes_version" "v133" {
  zone_id                 = data.cks_zone.this.id
  semantic_version_prefix = "1.33"
  latest                  = true
}

# One control node, three separate etcd nodes and two workers on an existing
# isolated network.
resource "cks_cluster" "example" {
  name                  = "example"
  zone_id               = data.cks_zone.this.id
  kubernetes_version_id = data.cks_kubernetes_version.v133.id
  service_offering_id   = data.cks_service_offering.medium.id
  network_id            = data.cks_network.k8s.id
  keypair               = var.keypair

  control_nodes       = 1
  etcd_nodes          = 3
  size                = 2
  node_root_disk_size = 40

  # A plan that would destroy or replace the cluster fails while this is true.
  deletion_protection = var.deletion_protection

  timeouts = {
    create = "90m"
  }
}

variable "zone" {
  type = string
}

variable "service_offering" {
  type = string
}

variable "network" {
  description = "Name of the isolated network the cluster joins."
  type        = string
}

variable "keypair" {
  description = "SSH key pair whose public key CKS authorises for user cloud on every node."
  type        = string
}

variable "deletion_protection" {
  description = "Refuse plans that would delete the cluster; set it to false and apply before a destroy."
  type        = bool
  default     = true
}

output "ssh_ports" {
  description = "Public SSH port of each node on the cluster's address."
  value       = { for n in cks_cluster.example.nodes : n.name => "${cks_cluster.example.ip_address}:${n.ssh_port}" }
}
