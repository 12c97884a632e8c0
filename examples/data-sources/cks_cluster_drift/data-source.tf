# Check one cluster: VM map, VMs, Kubernetes nodes (over SSH, as CloudStack
# does) and the SSH network rules. Findings show as a warning in the plan.
data "cks_cluster_drift" "prod" {
  cluster_id = data.cks_cluster.prod.id

  ssh {
    private_key = file("~/.ssh/cks-key")
    # Pin control node 1's host key: ssh-keyscan -p 2222 <cluster ip>
    host_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGqN5S6KmJx0p8n7oVb1d0t0H3Q3i2h4kzJt2v5sQ9Xs"
    timeout  = "30s"
  }

  grace_period = "15m"
}

output "prod_drift" {
  value = {
    in_sync = data.cks_cluster_drift.prod.in_sync
    summary = data.cks_cluster_drift.prod.summary
    stray   = [for f in data.cks_cluster_drift.prod.findings : f.vm_name if f.kind == "unmapped_vm"]
  }
}

# Without SSH access, read the nodes through the Kubernetes API with the
# kubeconfig CloudStack keeps for the cluster.
data "cks_cluster_drift" "prod_via_api" {
  cluster_id  = data.cks_cluster.prod.id
  node_source = "kubeconfig"
}
