# With the autoscaler on, size is left out: the autoscaler owns the worker
# count and its changes never show as a diff. Without network_id, CloudStack
# creates an isolated network for the cluster.
resource "cks_cluster" "autoscaled" {
  name                  = "autoscaled"
  zone_id               = data.cks_zone.this.id
  kubernetes_version_id = data.cks_kubernetes_version.v133.id
  service_offering_id   = data.cks_service_offering.medium.id

  autoscaling = {
    enabled  = true
    min_size = 1
    max_size = 5
  }
}
