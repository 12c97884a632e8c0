terraform {
  # terraform query and its -generate-config-out came with Terraform 1.14.
  required_version = ">= 1.14.0"
  required_providers {
    cks = {
      source = "cloudstack-cks/cks"
    }
  }
}

# The credentials come from CLOUDSTACK_API_URL, CLOUDSTACK_API_KEY and
# CLOUDSTACK_SECRET_KEY.
provider "cks" {}

variable "account" {
  type        = string
  description = "The account whose clusters this workspace adopts."
}

variable "domain_id" {
  type        = string
  description = "Id of the account's domain."
}
