package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// ownerValidators refuse at plan time the owner combinations of a
// cks_cluster that createKubernetesCluster does not take: it takes either
// account together with domain_id, or project_id, or neither (the caller's
// own account). Unknown values are left for apply.
//
// In Apache CloudStack (plugins/integrations/kubernetes-service),
// CreateKubernetesClusterCmd.getEntityOwnerId() resolves the owner with
// _accountService.finalyzeAccountId(accountName, domainId, projectId, true),
// and KubernetesClusterManagerImpl.createManagedKubernetesCluster takes it
// as the cluster's owner. finalyzeAccountId (BaseCmd.finalyzeAccountId in
// api/, AccountOwnerResolverServiceImpl.finalizeAccountId in recent server/
// code, the same logic) decides:
//
//   - accountName set: domainId is required ("Account must be specified with
//     domainId parameter"), and the account found in that domain is the
//     owner; projectId is not looked at. A cluster asked for a project with
//     an account lands in the account, and Terraform reports "inconsistent
//     result after apply".
//   - no accountName: domainId is not looked at; projectId, when set, makes
//     the project's account the owner, else the caller owns the cluster.
var ownerValidators = map[string][]validator.String{
	"account":    {stringvalidator.AlsoRequires(path.MatchRoot("domain_id"))},
	"domain_id":  {stringvalidator.AlsoRequires(path.MatchRoot("account"))},
	"project_id": {stringvalidator.ConflictsWith(path.MatchRoot("account"), path.MatchRoot("domain_id"))},
}
