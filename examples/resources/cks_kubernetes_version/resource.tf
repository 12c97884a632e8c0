# Register Kubernetes 1.34.2 for one zone from a binaries ISO built with
# create-kubernetes-binaries-iso.sh. The apply waits until CloudStack has
# downloaded the ISO (TF_LOG=INFO shows the progress).
data "cks_zone" "this" {
  name = var.zone
}

resource "cks_kubernetes_version" "v1_34" {
  semantic_version = "1.34.2"
  zone_id          = data.cks_zone.this.id
  url              = var.iso_url
  checksum         = var.iso_checksum
  min_cpu_number   = 2
  min_memory       = 2048

  # Disabled versions keep their clusters running, but no cluster can be
  # created with them or upgraded to them.
  state = "Enabled"

  timeouts = {
    create = "45m"
  }
}

variable "zone" {
  type = string
}

variable "iso_url" {
  description = "URL of the binaries ISO, such as https://download.cloudstack.org/cks/setup-v1.34.2-calico-x86_64.iso."
  type        = string
}

variable "iso_checksum" {
  description = "Checksum of the ISO with its algorithm, such as {SHA-256}<hex>; null skips the check."
  type        = string
  default     = null
}

output "kubernetes_version_id" {
  value = cks_kubernetes_version.v1_34.id
}
