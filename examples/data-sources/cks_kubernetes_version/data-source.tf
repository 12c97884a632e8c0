# Resolve a Kubernetes release to the id of an Enabled CKS version with a
# Ready ISO in the zone; the error lists the usable versions otherwise.
data "cks_kubernetes_version" "v133" {
  zone_id          = var.zone_id
  semantic_version = "1.33.13"
}

# The newest usable 1.33 patch release, whatever it is today.
data "cks_kubernetes_version" "latest_133" {
  zone_id                 = var.zone_id
  semantic_version_prefix = "1.33"
  latest                  = true
}

variable "zone_id" {
  type = string
}

output "kubernetes_version_ids" {
  value = {
    exact      = data.cks_kubernetes_version.v133.id
    latest_133 = data.cks_kubernetes_version.latest_133.id
  }
}
