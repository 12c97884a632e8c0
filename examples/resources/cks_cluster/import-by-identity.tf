# Import a cluster by its identity (Terraform 1.12+), as terraform query
# -generate-config-out writes it.
import {
  to = cks_cluster.example
  identity = {
    id = "3b74274b-6554-40c2-b2cf-4329d4308544"
  }
}
