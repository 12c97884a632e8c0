# Check one cluster: VM map, VMs, Kubernetes nodes (over SSH, as CloudStack
# does) and the SSH network rules. Findings show as a warning in the plan;
# set fail_on_drift = true to turn them into an error (a CI gate), which
# also fails when a view could not be checked (see incomplete_views).
data "cks_cluster_drift" "this" {
  cluster_id = var.cluster_id

  ssh = {
    # The key is read when the check runs: only this path ends up in plans
    # and state. Leave it out to sign with the SSH agent (SSH_AUTH_SOCK).
    private_key_file = var.private_key_file
    # Pin control node 1's host key, e.g. from: ssh-keyscan -p 2222 <cluster ip>
    host_key = var.control_node_host_key
    timeout  = "30s"
  }

  grace_period = "15m"
}

# Without SSH access, read the nodes through the Kubernetes API with the
# kubeconfig CloudStack keeps for the cluster.
data "cks_cluster_drift" "via_api" {
  cluster_id  = var.cluster_id
  node_source = "kubeconfig"
}

variable "cluster_id" {
  type = string
}

variable "private_key_file" {
  description = "Path of the PEM private key of the cluster's key pair."
  type        = string
}

variable "control_node_host_key" {
  description = "SSH host key of control node 1, as an authorized_keys line (ssh-ed25519 AAAA...)."
  type        = string
}

output "drift" {
  value = {
    in_sync = data.cks_cluster_drift.this.in_sync
    summary = data.cks_cluster_drift.this.summary
    stray   = [for f in data.cks_cluster_drift.this.findings : f.vm_name if f.kind == "unmapped_vm"]
    # The views that could not be checked, and why: never in sync then.
    missing = data.cks_cluster_drift.this.incomplete_views
  }
}
