terraform {
  required_providers {
    cloudstack = {
      source = "cloudstack/cloudstack"
    }
    cks = {
      source = "cloudstack-cks/cks"
    }
  }
}

# cks_cluster takes ids: the look-ups find them by the names the official
# provider's configuration used.
data "cks_zone" "this" {
  name = var.zone
}

data "cks_kubernetes_version" "v133" {
  zone_id = data.cks_zone.this.id
  name    = "v1.33.13"
}

data "cks_service_offering" "medium" {
  name    = var.service_offering
  zone_id = data.cks_zone.this.id
}

resource "cks_cluster" "main" {
  name                  = "main"
  zone_id               = data.cks_zone.this.id
  kubernetes_version_id = data.cks_kubernetes_version.v133.id
  service_offering_id   = data.cks_service_offering.medium.id
  size                  = var.size
  keypair               = var.keypair
  node_root_disk_size   = 40
}

moved {
  from = cloudstack_kubernetes_cluster.main
  to   = cks_cluster.main
}

variable "zone" {
  type    = string
  default = "zone-1"
}

variable "service_offering" {
  type    = string
  default = "Medium Instance"
}

variable "keypair" {
  type    = string
  default = "ops"
}

variable "size" {
  type    = number
  default = 3
}
