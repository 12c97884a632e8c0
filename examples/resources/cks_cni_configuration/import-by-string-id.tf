# Import a CNI configuration by its id (Terraform 1.5+, OpenTofu 1.6+).
import {
  to = cks_cni_configuration.calico
  id = "0c5d7a8e-3f41-4d55-9a3b-2c1e7f6d4b90"
}
