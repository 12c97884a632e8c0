# clusters.tfquery.hcl: continues main.tf above
# Every cluster the credentials can see, in every account and project.
list "cks_cluster" "all" {
  provider = cks
}
