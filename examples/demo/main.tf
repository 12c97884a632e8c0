# The `make demo` configuration: a CKS cluster with separate etcd nodes on the
# embedded simulator, scaled through the CloudStack 4.22.1.1 hazard, and a
# drift check that can act as a CI gate.

terraform {
  required_version = ">= 1.11"
  required_providers {
    cks = {
      source = "cloudstack-cks/cks"
    }
  }
}

variable "simulator_info_file" {
  description = "Path of the JSON line that cksim printed on start."
  type        = string
}

variable "size" {
  description = "Number of worker nodes."
  type        = number
  default     = 1
}

variable "ssh_host_key" {
  description = "The cluster's SSH host key (authorized_keys format). The drift check runs once it is known."
  type        = string
  default     = ""
}

variable "fail_on_drift" {
  description = "Turn drift into an error, as a CI gate does."
  type        = bool
  default     = false
}

locals {
  sim = jsondecode(file(var.simulator_info_file))
}

provider "cks" {
  api_url    = local.sim.api_url
  api_key    = local.sim.api_key
  secret_key = local.sim.secret_key
}

data "cks_kubernetes_version" "v133" {
  zone_id          = local.sim.zone_id
  semantic_version = "1.33.13"
}

resource "cks_cluster" "demo" {
  name                  = "cks-etcd-demo"
  zone_id               = local.sim.zone_id
  kubernetes_version_id = data.cks_kubernetes_version.v133.id
  service_offering_id   = local.sim.service_offering_id
  keypair               = local.sim.keypair
  control_nodes         = 1
  etcd_nodes            = 3
  size                  = var.size
  node_root_disk_size   = 80
}

data "cks_cluster_drift" "demo" {
  count = var.ssh_host_key == "" ? 0 : 1

  cluster_id    = cks_cluster.demo.id
  fail_on_drift = var.fail_on_drift
  grace_period  = "0s"

  ssh = {
    # The path, not the key: only the path ends up in plans and state.
    private_key_file = local.sim.private_key_file
    host_key         = var.ssh_host_key
  }
}

output "cluster" {
  value = {
    id         = cks_cluster.demo.id
    state      = cks_cluster.demo.state
    size       = cks_cluster.demo.size
    ip_address = cks_cluster.demo.ip_address
    # A node whose SSH forward is gone has no ssh_port.
    nodes = [for n in cks_cluster.demo.nodes : "${n.role} ${n.name} ssh:${n.ssh_port == null ? "no forward" : n.ssh_port}"]
  }
}

output "drift" {
  value = one([for d in data.cks_cluster_drift.demo : {
    in_sync = d.in_sync
    summary = d.summary
  }])
}
