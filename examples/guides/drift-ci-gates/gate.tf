# gate.tf: continues cluster.tf above, once known_hosts holds control node 1's host key.
variable "fail_on_drift" {
  type    = bool
  default = false
}

variable "cluster_private_key_file" {
  type = string
}

data "cks_cluster_drift" "prod" {
  cluster_id    = cks_cluster.prod.id
  fail_on_drift = var.fail_on_drift

  ssh = {
    private_key_file = var.cluster_private_key_file
    known_hosts      = file("${path.module}/known_hosts")
  }
}
