terraform {
  required_providers {
    cks = {
      source = "cloudstack-cks/cks"
    }
  }
}

data "cks_zone" "this" {
  name = var.zone
}

data "cks_service_offering" "medium" {
  name    = var.service_offering
  zone_id = data.cks_zone.this.id
}

data "cks_kubernetes_version" "v133" {
  zone_id                 = data.cks_zone.this.id
  semantic_version_prefix = "1.33"
  latest                  = true
}

resource "cks_cluster" "prod" {
  name                  = "prod"
  zone_id               = data.cks_zone.this.id
  kubernetes_version_id = data.cks_kubernetes_version.v133.id
  service_offering_id   = data.cks_service_offering.medium.id
  keypair               = var.keypair
  size                  = var.size

  etcd_nodes = 3
  # The source CIDRs of the node and etcd SSH rules, kept after every scale.
  ssh_cidrs = ["10.20.0.0/16", "192.0.2.10/32"]
}

variable "zone" {
  type = string
}

variable "service_offering" {
  type = string
}

variable "keypair" {
  type = string
}

variable "size" {
  type    = number
  default = 2
}
