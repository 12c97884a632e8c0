# Check every cluster whose name matches, four at a time.
data "cks_clusters_drift" "fleet" {
  name_regex  = var.name_regex
  concurrency = 4

  ssh = {
    # Only the path ends up in plans and state; the key is read at check time.
    private_key_file = var.private_key_file
    # Each cluster has its own host key: list control node 1 of every cluster.
    known_hosts = file(var.known_hosts_file)
  }
}

variable "name_regex" {
  type    = string
  default = "^prod-"
}

variable "private_key_file" {
  description = "Path of the PEM private key of the clusters' key pair."
  type        = string
}

variable "known_hosts_file" {
  description = "known_hosts file with a [ip]:2222 line for every cluster."
  type        = string
}

# Every cluster not known to be in sync: drifted, incomplete, skipped or
# not readable, with its summary (or its error).
output "drifted_clusters" {
  value = {
    for c in data.cks_clusters_drift.fleet.clusters : c.name => coalesce(c.error, c.summary) if !c.in_sync
  }
}
