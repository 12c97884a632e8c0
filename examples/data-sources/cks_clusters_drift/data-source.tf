# Check every production cluster the credentials see, four at a time.
data "cks_clusters_drift" "prod" {
  name_regex  = "^prod-"
  concurrency = 4

  ssh {
    private_key = file("~/.ssh/cks-key")
    # Each cluster has its own host key: list every control node.
    known_hosts = file("${path.module}/cks_known_hosts")
  }
}

output "drifted_clusters" {
  value = {
    for c in data.cks_clusters_drift.prod.clusters : c.name => c.summary if !c.in_sync
  }
}
