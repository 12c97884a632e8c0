# cluster.tf: the cluster the gate checks (the etcd scaling guide's, by name).
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
  etcd_nodes            = 3
  size                  = 1
}

output "ip_address" {
  value = cks_cluster.prod.ip_address
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
