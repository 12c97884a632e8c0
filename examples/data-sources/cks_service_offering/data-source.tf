data "cks_zone" "this" {
  name = var.zone
}

# By exact name, among the offerings usable in the zone.
data "cks_service_offering" "workers" {
  name    = var.worker_offering
  zone_id = data.cks_zone.this.id
}

# By regular expression, when the full name varies (the look-up fails,
# naming every match, unless exactly one matches).
data "cks_service_offering" "etcd" {
  name_regex = "^${var.etcd_offering_prefix}"
  zone_id    = data.cks_zone.this.id
}

variable "zone" {
  type = string
}

variable "worker_offering" {
  type = string
}

variable "etcd_offering_prefix" {
  type = string
}

output "offerings" {
  value = {
    workers = "${data.cks_service_offering.workers.id}: ${data.cks_service_offering.workers.cpu_number} vCPU, ${data.cks_service_offering.workers.memory} MiB"
    etcd    = data.cks_service_offering.etcd.id
  }
}
