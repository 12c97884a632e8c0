package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// validateOwnership checks at plan time that the owner of a cks_cluster is
// given the way createKubernetesCluster takes it: either account together
// with domain_id, or project_id, or neither (the caller's own account).
// Every other combination is refused with the attribute at fault, before
// any request.
//
// In Apache CloudStack (plugins/integrations/kubernetes-service),
// CreateKubernetesClusterCmd.getEntityOwnerId() resolves the owner with
// _accountService.finalyzeAccountId(accountName, domainId, projectId, true),
// and KubernetesClusterManagerImpl.createManagedKubernetesCluster takes it
// as the cluster's owner (accountService.getActiveAccountById(
// cmd.getEntityOwnerId())). finalyzeAccountId (BaseCmd.finalyzeAccountId
// in api/, AccountOwnerResolverServiceImpl.finalizeAccountId in recent
// server/ code, the same logic) decides:
//
//   - accountName set: domainId is required ("Account must be specified with
//     domainId parameter"), and the account found in that domain is the
//     owner; projectId is not looked at. A cluster asked for a project with
//     an account lands in the account, and Terraform reports "inconsistent
//     result after apply".
//   - no accountName: domainId is not looked at; projectId, when set, makes
//     the project's account the owner, else the caller owns the cluster.
//
// Unknown values are left for apply: the check only refuses what is known.
func validateOwnership(account, domainID, projectID types.String, diags *diag.Diagnostics) {
	set := func(v types.String) bool { return known(v) }
	absent := func(v types.String) bool { return v.IsNull() }
	if set(projectID) && (set(account) || set(domainID)) {
		diags.AddAttributeError(path.Root("project_id"), "Conflicting Cluster Owner",
			"project_id cannot be combined with account or domain_id: CloudStack's createKubernetesCluster takes the "+
				"owner from either account with domain_id, or project_id, not both. With account set it ignores "+
				"project_id and the cluster belongs to the account; domain_id without account is ignored. Set "+
				"project_id alone for a project's cluster, or account with domain_id for an account's.")
		return
	}
	if set(account) && absent(domainID) {
		diags.AddAttributeError(path.Root("account"), "Missing Domain For Account",
			"account needs domain_id: CloudStack finds the owning account by name within a domain, and "+
				"createKubernetesCluster refuses account without domainid (\"Account must be specified with domainId "+
				"parameter\"). Set domain_id to the id of the account's domain.")
	}
	if set(domainID) && absent(account) && absent(projectID) {
		diags.AddAttributeError(path.Root("domain_id"), "Domain Without Account",
			"domain_id only says where to find account: CloudStack's createKubernetesCluster ignores domainid without "+
				"account, and the cluster would belong to the caller's own account and domain. Set account with it, "+
				"or remove it.")
	}
}
