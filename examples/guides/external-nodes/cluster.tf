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

data "cks_network" "k8s" {
  name    = var.network
  zone_id = data.cks_zone.this.id
}

data "cks_kubernetes_version" "v133" {
  zone_id                 = data.cks_zone.this.id
  semantic_version_prefix = "1.33"
  latest                  = true
}

# The cluster on a network of your own: the GPU VMs live in it before they
# join and after they leave.
resource "cks_cluster" "prod" {
  name                  = "prod"
  zone_id               = data.cks_zone.this.id
  kubernetes_version_id = data.cks_kubernetes_version.v133.id
  service_offering_id   = data.cks_service_offering.medium.id
  network_id            = data.cks_network.k8s.id
  keypair               = var.keypair
  etcd_nodes            = 3

  # The workers CKS makes and manages; the GPU nodes are not counted.
  size = var.size
}

# One external node per GPU VM. Each references the cluster, so a destroy
# takes the nodes out before it deletes the cluster, and the VMs keep
# running.
resource "cks_cluster_node" "gpu" {
  for_each = toset(var.gpu_vm_ids)

  cluster_id = cks_cluster.prod.id
  vm_id      = each.value

  # The cluster's upgrades leave these nodes alone: upgrade their drivers
  # and Kubernetes yourself.
  manual_upgrade = true
}

variable "zone" {
  type = string
}

variable "service_offering" {
  type = string
}

variable "network" {
  description = "Name of the isolated network the cluster and the GPU VMs share."
  type        = string
}

variable "keypair" {
  type = string
}

variable "size" {
  type    = number
  default = 1
}

variable "gpu_vm_ids" {
  description = "Ids of running VMs in the network, deployed from a template marked for CKS, to join as external nodes."
  type        = list(string)
  default     = []
}
