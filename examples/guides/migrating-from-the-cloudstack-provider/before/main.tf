terraform {
  required_providers {
    cloudstack = {
      source = "cloudstack/cloudstack"
    }
  }
}

# The official provider takes names (or ids).
resource "cloudstack_kubernetes_cluster" "main" {
  name               = "main"
  zone               = var.zone
  kubernetes_version = "v1.33.13"
  service_offering   = var.service_offering
  size               = 3
  keypair            = var.keypair
  noderootdisksize   = 40
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
