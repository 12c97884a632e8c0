# For an upgrade pipeline: the versions CloudStack would upgrade the cluster
# to (newer, same major version, at most one minor version ahead), newest
# first. The list is empty when the cluster is on the newest release.
data "cks_cluster" "prod" {
  name = var.cluster_name
}

data "cks_kubernetes_versions" "next" {
  zone_id         = data.cks_cluster.prod.zone_id
  upgradable_from = data.cks_cluster.prod.kubernetes_version
}

variable "cluster_name" {
  type = string
}

output "upgrade_to" {
  description = "The newest version the cluster may be upgraded to, or null."
  value       = try(data.cks_kubernetes_versions.next.versions[0].id, null)
}

output "upgrades" {
  value = [for v in data.cks_kubernetes_versions.next.versions : "${v.semantic_version} (${v.name})"]
}
