terraform {
  required_providers {
    cloudstack = {
      source = "cloudstack/cloudstack"
    }
  }
}

# The next Kubernetes release, registered for the zone.
resource "cloudstack_kubernetes_version" "v134" {
  semantic_version = "1.34.9"
  url              = var.iso_url
  min_cpu          = 2
  min_memory       = 2048
  zone             = var.zone
}

# A CNI configuration, which CloudStack keeps as base64 user data.
resource "cloudstack_cni_configuration" "calico" {
  name       = "calico"
  cni_config = base64encode(file("${path.module}/calico.yaml"))
  params     = ["POD_CIDR"]
}

# The official provider takes names (or ids).
resource "cloudstack_kubernetes_cluster" "main" {
  name                 = "main"
  zone                 = var.zone
  kubernetes_version   = "v1.33.13"
  service_offering     = var.service_offering
  size                 = 3
  keypair              = var.keypair
  noderootdisksize     = 40
  cni_configuration_id = cloudstack_cni_configuration.calico.id
  cni_config_details   = { POD_CIDR = "10.244.0.0/16" }
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
