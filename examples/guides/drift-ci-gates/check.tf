# check.tf: continues cluster.tf above.
check "cluster_in_sync" {
  data "cks_cluster_drift" "prod_api" {
    cluster_id  = cks_cluster.prod.id
    node_source = "kubeconfig"
  }

  assert {
    condition     = data.cks_cluster_drift.prod_api.in_sync
    error_message = data.cks_cluster_drift.prod_api.summary
  }
}
