# A cluster and the drift checks a policy gate reads from a saved plan:
#
#   terraform plan -refresh-only -out=plan.tfplan   # or any plan that changes the cluster
#   terraform show -json plan.tfplan > plan.json
#   conftest test --policy policy/ plan.json         # or: opa eval -d policy/ -i plan.json 'data.main.deny'
#
# fail_on_drift stays false: the policies are the gate, and they see every
# finding, every ignored finding and every check that was not complete.

terraform {
  required_providers {
    cks = {
      source = "cloudstack-cks/cks"
    }
  }
}

# Credentials from CLOUDSTACK_API_URL, CLOUDSTACK_API_KEY and
# CLOUDSTACK_SECRET_KEY.
provider "cks" {}

resource "cks_cluster" "prod" {
  name                       = var.name
  zone_id                    = var.zone_id
  kubernetes_version_id      = var.kubernetes_version_id
  service_offering_id        = var.service_offering_id
  keypair                    = var.keypair
  size                       = var.size
  ssh_cidrs                  = var.ssh_cidrs
  api_cidrs                  = var.api_cidrs
  recreate_user_hazard_rules = var.recreate_user_hazard_rules
}

# The fleet's check does not depend on cks_cluster.prod, so Terraform reads
# it during every plan, also one that changes the cluster: the policies join
# its results with the planned size change.
data "cks_clusters_drift" "fleet" {
  name_regex  = "^${var.name}$"
  node_source = "kubeconfig"
  ssh_cidrs   = var.ssh_cidrs
  api_cidrs   = var.api_cidrs
  ignore      = var.ignore
}

# One cluster's check. A refresh-only plan reads it; a plan that changes
# the cluster reads it only during apply, and the policies report such a
# check as not run unless another check of the plan covers the cluster.
data "cks_cluster_drift" "prod" {
  cluster_id  = cks_cluster.prod.id
  node_source = "kubeconfig"
  ssh_cidrs   = var.ssh_cidrs
  api_cidrs   = var.api_cidrs
  ignore      = var.ignore
}

variable "name" {
  type    = string
  default = "prod"
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

variable "size" {
  type    = number
  default = 1
}

variable "ssh_cidrs" {
  description = "Who may reach the nodes over SSH; the CIDR policy allows private ranges only, unless told otherwise."
  type        = list(string)
  default     = ["10.0.0.0/8"]
}

variable "api_cidrs" {
  description = "Who may reach the Kubernetes API on 6443; the CIDR policy allows private ranges only, unless told otherwise."
  type        = list(string)
  default     = ["10.0.0.0/8"]
}

variable "recreate_user_hazard_rules" {
  type    = bool
  default = false
}

# Accepted findings, each with a reason and, best, an expiry.
variable "ignore" {
  type = list(object({
    kind         = optional(string)
    vm_name      = optional(string)
    node_name    = optional(string)
    cluster_name = optional(string)
    reason       = string
    expires      = optional(string)
  }))
  default = []
}
