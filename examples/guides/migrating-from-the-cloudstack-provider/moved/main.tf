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

resource "cks_kubernetes_version" "v134" {
  semantic_version = "1.34.9"
  url              = var.iso_url
  min_cpu_number   = 2
  min_memory       = 2048
  zone_id          = data.cks_zone.this.id
}

resource "cks_cni_configuration" "calico" {
  name       = "calico"
  cni_config = base64encode(file("${path.module}/calico.yaml"))
  params     = ["POD_CIDR"]
}

resource "cks_cluster" "main" {
  name                  = "main"
  zone_id               = data.cks_zone.this.id
  kubernetes_version_id = data.cks_kubernetes_version.v133.id
  service_offering_id   = data.cks_service_offering.medium.id
  size                  = var.size
  keypair               = var.keypair
  node_root_disk_size   = 40
  cni_configuration_id  = cks_cni_configuration.calico.id
  cni_config_details    = { POD_CIDR = "10.244.0.0/16" }
}

moved {
  from = cloudstack_kubernetes_version.v134
  to   = cks_kubernetes_version.v134
}

moved {
  from = cloudstack_cni_configuration.calico
  to   = cks_cni_configuration.calico
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

variable "iso_url" {
  type    = string
  default = "https://download.cloudstack.org/cks/setup-v1.34.9-calico-x86_64.iso"
}

variable "size" {
  type    = number
  default = 3
}
