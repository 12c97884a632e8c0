# With the autoscaler on, size is left out: the autoscaler owns the worker
# count and its changes never show as a diff.
resource "cks_cluster" "autoscaled" {
  name                  = "autoscaled"
  zone_id               = var.zone_id
  kubernetes_version_id = data.cks_kubernetes_version.v133.id
  service_offering_id   = var.service_offering_id

  autoscaling = {
    enabled  = true
    min_size = 1
    max_size = 5
  }
}
