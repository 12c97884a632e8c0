data "cks_zone" "this" {
  name = var.zone
}

# An existing network to create a cluster in (cks_cluster.network_id).
data "cks_network" "k8s" {
  name    = var.network
  zone_id = data.cks_zone.this.id
}

# A project's networks are found with the project's id only, as CloudStack
# lists them only for their project.
data "cks_project" "team" {
  name = var.project
}

data "cks_network" "team" {
  name_regex = "^${var.project_network_prefix}"
  project_id = data.cks_project.team.id
}

variable "zone" {
  type = string
}

variable "network" {
  type = string
}

variable "project" {
  type = string
}

variable "project_network_prefix" {
  type = string
}

output "networks" {
  value = {
    k8s  = "${data.cks_network.k8s.id} (${data.cks_network.k8s.type}, ${data.cks_network.k8s.state})"
    team = data.cks_network.team.id
  }
}
