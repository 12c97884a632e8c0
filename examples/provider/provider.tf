terraform {
  required_providers {
    cks = {
      source = "cloudstack-cks/cks"
    }
  }
}

variable "cloudstack_api_key" {
  type = string
}

variable "cloudstack_secret_key" {
  type      = string
  sensitive = true
}

provider "cks" {
  api_url    = "https://cloud.example.com/client/api"
  api_key    = var.cloudstack_api_key
  secret_key = var.cloudstack_secret_key

  # Trust a private certificate authority instead of disabling verification.
  # ca_file = "/etc/ssl/certs/cloud-ca.pem"

  # Must match the server setting cloud.kubernetes.etcd.node.start.port.
  etcd_ssh_start_port = 50000
}
