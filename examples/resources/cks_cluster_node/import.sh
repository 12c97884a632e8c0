# Import a node another client joined, by the cluster's id and the VM's id.
# CloudStack does not tell whether it was joined for manual upgrades: the
# configured manual_upgrade is recorded on the VM without a change.
terraform import cks_cluster_node.gpu 3b74274b-6554-40c2-b2cf-4329d4308544/9f0c6c55-3f7e-4a53-8a3b-52e8f7f0f0d1
