# Import a Kubernetes version by its id (Terraform 1.5+, OpenTofu 1.6+).
import {
  to = cks_kubernetes_version.v1_34
  id = "5a1b6e5c-8c9d-4b43-a7cf-7d4a1f0e2b61"
}
