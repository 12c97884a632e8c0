# A CI gate on CKS drift. Two ways to use it:
#
# 1. `terraform plan -var fail_on_drift=true` fails (exit code 1) when any
#    cluster drifted, and the error lists every finding: a hard gate. It
#    fails closed: a cluster that could not be checked completely (SSH or
#    the Kubernetes API unreachable, a CloudStack error, an operation in
#    progress) fails it too, unless -var allow_incomplete=true.
# 2. With fail_on_drift = false, the `check` block below reports drift as a
#    warning on every plan and apply without blocking them: a soft gate.
#    (Inside a check block, even errors only warn.)

terraform {
  required_providers {
    cks = {
      source = "cloudstack-cks/cks"
    }
  }
}

variable "fail_on_drift" {
  type        = bool
  default     = false
  description = "Fail the plan when a cluster drifted."
}

variable "allow_incomplete" {
  type        = bool
  default     = false
  description = "Let the gate pass clusters that could not be checked completely (reported as warnings)."
}

# The path of the key, not the key: Terraform records data source arguments
# in saved plans and state, so a private_key would end up in both. The CI job
# writes the key from its secret store to this file (mode 0600).
variable "ssh_private_key_file" {
  type        = string
  description = "Path of the PEM private key of the clusters' key pair (CKS authorises it for user cloud)."
}

variable "known_hosts" {
  type        = string
  description = "known_hosts lines for control node 1 of every cluster ([ip]:2222 ssh-ed25519 ...)."
}

# Credentials come from CLOUDSTACK_API_URL, CLOUDSTACK_API_KEY and
# CLOUDSTACK_SECRET_KEY in the CI job's environment.
provider "cks" {}

# The hard gate: every cluster, checked during plan.
data "cks_clusters_drift" "all" {
  fail_on_drift    = var.fail_on_drift
  allow_incomplete = var.allow_incomplete

  ssh = {
    private_key_file = var.ssh_private_key_file
    known_hosts      = var.known_hosts
  }
}

# The soft gate: a check block with its own scoped data source.
check "prod_cluster_in_sync" {
  data "cks_cluster_drift" "prod" {
    cluster_id  = "REPLACE-WITH-THE-PROD-CLUSTER-ID"
    node_source = "kubeconfig"
  }

  assert {
    condition     = data.cks_cluster_drift.prod.in_sync
    error_message = "Cluster prod drifted: ${data.cks_cluster_drift.prod.summary}"
  }

  assert {
    condition     = data.cks_cluster_drift.prod.counts["scale_hazard"] == 0
    error_message = "The next scale of cluster prod would hit CloudStack bug #14159; fix the rules before scaling."
  }
}

output "drift_summary" {
  value = data.cks_clusters_drift.all.summary
}
