# A project's id for cks_cluster.project_id and cks_network.project_id.
data "cks_project" "team" {
  name = var.project
}

variable "project" {
  type = string
}

output "project_id" {
  value = data.cks_project.team.id
}
