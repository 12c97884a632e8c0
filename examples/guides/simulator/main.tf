terraform {
  required_providers {
    cks = {
      source = "cloudstack-cks/cks"
    }
  }
}

variable "simulator_info_file" {
  type = string
}

variable "fail_on_drift" {
  type    = bool
  default = false
}

locals {
  sim = jsondecode(file(var.simulator_info_file))
}

provider "cks" {
  api_url    = local.sim.api_url
  api_key    = local.sim.api_key
  secret_key = local.sim.secret_key
}

resource "cks_cluster" "test" {
  name                  = "test"
  zone_id               = local.sim.zone_id
  kubernetes_version_id = local.sim.kubernetes_versions["1.33.13"]
  service_offering_id   = local.sim.service_offering_id
  keypair               = local.sim.keypair
  control_nodes         = 1
  etcd_nodes            = 3
  size                  = 1
}

data "cks_cluster_drift" "test" {
  cluster_id    = cks_cluster.test.id
  node_source   = "kubeconfig"
  fail_on_drift = var.fail_on_drift
}
