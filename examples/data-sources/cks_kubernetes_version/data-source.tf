# Resolve a Kubernetes release to the id of an Enabled CKS version with a
# Ready ISO in the zone; the error lists the usable versions otherwise.
data "cks_kubernetes_version" "v133" {
  zone_id          = var.zone_id
  semantic_version = "1.33.13"
}

variable "zone_id" {
  type = string
}

output "kubernetes_version_id" {
  value = data.cks_kubernetes_version.v133.id
}
