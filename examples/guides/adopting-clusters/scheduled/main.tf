terraform {
  required_version = ">= 1.14.0"
  required_providers {
    cks = {
      source = "cloudstack-cks/cks"
    }
  }
}

# Credentials that may list every account's clusters (a root admin's, or a
# read-only role with listKubernetesClusters), from CLOUDSTACK_API_URL,
# CLOUDSTACK_API_KEY and CLOUDSTACK_SECRET_KEY.
provider "cks" {}
