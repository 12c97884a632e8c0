# The kubeconfig never reaches the state or plan files (Terraform 1.10+, OpenTofu 1.11+).
# CKS's admin kubeconfig authenticates with a client certificate and key, so
# pass those, with the API server's address and certificate authority; token
# is null for it.
ephemeral "cks_cluster_kubeconfig" "this" {
  cluster_id = cks_cluster.example.id
}

provider "kubernetes" {
  host                   = ephemeral.cks_cluster_kubeconfig.this.host
  cluster_ca_certificate = ephemeral.cks_cluster_kubeconfig.this.cluster_ca_certificate
  client_certificate     = ephemeral.cks_cluster_kubeconfig.this.client_certificate
  client_key             = ephemeral.cks_cluster_kubeconfig.this.client_key
}

# helm 3 takes the same values in its kubernetes attribute (helm 2: a block).
provider "helm" {
  kubernetes = {
    host                   = ephemeral.cks_cluster_kubeconfig.this.host
    cluster_ca_certificate = ephemeral.cks_cluster_kubeconfig.this.cluster_ca_certificate
    client_certificate     = ephemeral.cks_cluster_kubeconfig.this.client_certificate
    client_key             = ephemeral.cks_cluster_kubeconfig.this.client_key
  }
}

# A provider configured from a cluster created in the same configuration can
# reach it only once it exists: depends_on defers this read to the apply.
data "kubernetes_all_namespaces" "all" {
  depends_on = [cks_cluster.example]
}

output "namespaces" {
  value = data.kubernetes_all_namespaces.all.namespaces
}
