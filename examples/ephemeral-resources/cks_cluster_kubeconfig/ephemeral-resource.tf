# The kubeconfig never reaches the state or plan files (Terraform 1.10+, OpenTofu 1.11+).
ephemeral "cks_cluster_kubeconfig" "this" {
  cluster_id = cks_cluster.example.id
}

provider "kubernetes" {
  host                   = ephemeral.cks_cluster_kubeconfig.this.host
  cluster_ca_certificate = ephemeral.cks_cluster_kubeconfig.this.cluster_ca_certificate
  token                  = ephemeral.cks_cluster_kubeconfig.this.token
  client_certificate     = ephemeral.cks_cluster_kubeconfig.this.client_certificate
  client_key             = ephemeral.cks_cluster_kubeconfig.this.client_key
}

provider "helm" {
  kubernetes = {
    host                   = ephemeral.cks_cluster_kubeconfig.this.host
    cluster_ca_certificate = ephemeral.cks_cluster_kubeconfig.this.cluster_ca_certificate
    token                  = ephemeral.cks_cluster_kubeconfig.this.token
  }
}
