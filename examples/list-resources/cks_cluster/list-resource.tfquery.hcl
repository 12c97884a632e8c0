# Every Running cluster of a project whose name starts with "team-", with
# what an import records: terraform query -generate-config-out=clusters.tf
# writes a resource and an import block for each (Terraform 1.14+).
list "cks_cluster" "teams" {
  provider         = cks
  include_resource = true

  config {
    project_id = var.project_id
    name_regex = "^team-"
    state      = "Running"
  }
}
