# clusters.tfquery.hcl: continues main.tf above
# Every cluster of the account, with what an import of each records:
# terraform query -generate-config-out=clusters.tf writes a resource and
# an import block for each.
list "cks_cluster" "team" {
  provider         = cks
  include_resource = true

  config {
    account   = var.account
    domain_id = var.domain_id
  }
}
