# Import a cluster by its id (Terraform 1.5+, OpenTofu 1.6+), then plan to
# see the configuration match. node_root_disk_size and hypervisor are not
# returned by the CloudStack API, so they are null after the import; setting
# them in the configuration afterwards only records them (no replacement).
import {
  to = cks_cluster.example
  id = "3b74274b-6554-40c2-b2cf-4329d4308544"
}
