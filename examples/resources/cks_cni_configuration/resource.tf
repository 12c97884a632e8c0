# A CNI configuration that declares two variables, and a cluster created
# with it, which fills them. CloudStack stores the configuration as base64
# user data: base64encode() writes it in the form CloudStack stores.
resource "cks_cni_configuration" "calico" {
  name = "calico-3-30"
  cni_config = base64encode(<<-EOT
    #cloud-config
    write_files:
    - path: /etc/cks/calico-values.yaml
      content: |
        podCIDR: {{ POD_CIDR }}
        mtu: {{ MTU }}
  EOT
  )
  params = ["POD_CIDR", "MTU"]
}

resource "cks_cluster" "calico" {
  name                  = "calico"
  zone_id               = var.zone_id
  kubernetes_version_id = var.kubernetes_version_id
  service_offering_id   = var.service_offering_id
  keypair               = var.keypair
  size                  = 1

  cni_configuration_id = cks_cni_configuration.calico.id
  cni_config_details = {
    POD_CIDR = "10.244.0.0/16"
    MTU      = "1450"
  }
}

variable "zone_id" {
  type = string
}

variable "kubernetes_version_id" {
  type = string
}

variable "service_offering_id" {
  type = string
}

variable "keypair" {
  type = string
}
