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

removed {
  from = cloudstack_kubernetes_cluster.main

  lifecycle {
    destroy = false
  }
}

import {
  to = cks_cluster.main
  id = var.cluster_id # the cluster's id: cloudstack_kubernetes_cluster.main.id
}

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
  size                  = 3
  keypair               = var.keypair
  node_root_disk_size   = 40
}

variable "cluster_id" {
  type = string
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
