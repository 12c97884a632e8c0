# outputs.tf: continues gate.tf above.
output "drift" {
  value = {
    in_sync    = data.cks_cluster_drift.prod.in_sync
    incomplete = data.cks_cluster_drift.prod.incomplete_views
    counts     = data.cks_cluster_drift.prod.counts
    findings   = data.cks_cluster_drift.prod.findings
  }
}
