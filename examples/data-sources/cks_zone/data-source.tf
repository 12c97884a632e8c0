# The zone's id, from its exact name.
data "cks_zone" "this" {
  name = var.zone
}

variable "zone" {
  type = string
}

output "zone_id" {
  value = data.cks_zone.this.id
}
