# Import a Kubernetes version by its identity (Terraform 1.12+).
import {
  to = cks_kubernetes_version.v1_34
  identity = {
    id = "5a1b6e5c-8c9d-4b43-a7cf-7d4a1f0e2b61"
  }
}
