package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// Clusters on VPC tiers: CKS opens SSH, the API and etcd there with items of
// the tier's network ACL list, which the tier shares with every tier that
// uses the list (rules.ExpectedACL).

// vpcCIDRsRefusal says why ssh_cidrs and api_cidrs are refused on a VPC
// tier, and how to narrow the access there instead.
func vpcCIDRsRefusal(attr string) string {
	return attr + " cannot be set for a cluster on a VPC tier, so the provider refuses it rather than ignore it. On a VPC tier " +
		"CloudStack opens SSH (22), the API (6443) and etcd (2379) with items of the tier's network ACL list, not with rules on " +
		"the cluster's IP. An item belongs to the list, which every tier using it gets: it filters that port for every VM of " +
		"all those tiers, other clusters' included, so CIDRs for this cluster would narrow or widen theirs too. CloudStack's " +
		"destroy of any cluster on the list revokes every Allow item whose protocol is exactly \"TCP\" on 22 or 6443, and " +
		"each cluster created on it adds open ones at the top of the list. To narrow the access, replace CKS's items in the " +
		"list by items of your own with your CIDRs, which must admit the CloudStack management servers, and with protocol " +
		"\"tcp\" in lower case, which CloudStack's destroy leaves alone: the provider counts any item that lets the port in " +
		"as the path CKS needs and does not open it again. Remove " + attr + "."
}

// cidrAttrs are the attributes that narrow the cluster's rules by CIDR.
func cidrAttrs(m *clusterResourceModel) map[string]types.List {
	return map[string]types.List{"ssh_cidrs": m.SSHCIDRs, "api_cidrs": m.APICIDRs}
}

// refuseCIDRsOnVPC adds an error on each of ssh_cidrs and api_cidrs that is
// set for a cluster on a VPC tier.
func refuseCIDRsOnVPC(ctx context.Context, m *clusterResourceModel, network rules.NetworkKind, diags *diag.Diagnostics) {
	if network != rules.NetworkVPC {
		return
	}
	for _, name := range []string{"ssh_cidrs", "api_cidrs"} {
		if cidrs, _ := stringList(ctx, cidrAttrs(m)[name]); len(cidrs) > 0 {
			diags.AddAttributeError(path.Root(name), "Not Supported on a VPC Tier", vpcCIDRsRefusal(name))
		}
	}
}

// checkCreateNetwork refuses, for a cluster to be created, ssh_cidrs and
// api_cidrs on a VPC tier: it reads the network (one call) only when one of
// them is set and network_id is known. A failed read is not a refusal; the
// create checks again.
func (r *clusterResource) checkCreateNetwork(ctx context.Context, m *clusterResourceModel, diags *diag.Diagnostics) {
	set := false
	for _, l := range cidrAttrs(m) {
		cidrs, _ := stringList(ctx, l)
		set = set || len(cidrs) > 0
	}
	if !set || !known(m.NetworkID) {
		return
	}
	kind, err := r.engine().NetworkKindByID(ctx, m.NetworkID.ValueString(), knownString(m.ProjectID))
	if err != nil {
		diags.AddAttributeWarning(path.Root("network_id"), "Unable to Check the Network",
			"Reading the network to check that ssh_cidrs and api_cidrs apply to it failed: "+err.Error()+".")
		return
	}
	refuseCIDRsOnVPC(ctx, m, kind, diags)
}

// warnDestroyOnVPC says, in the plan of a destroy or a replacement of a
// cluster on a VPC tier with a list of its own, which network ACL items
// CloudStack's destroy revokes beyond the cluster's (the user's, other
// clusters'), and what the provider restores after it. op is the destroy:
// its plan is the state.
func (r *clusterResource) warnDestroyOnVPC(ctx context.Context, op *clusterOp, diags *diag.Diagnostics) {
	if r.data == nil || op.private.network != rules.NetworkVPC || !known(op.state.ID) {
		return
	}
	id := op.id()
	impact, err := r.engine().CheckDelete(ctx, id, op.intent)
	if err != nil {
		diags.AddWarning("Unable to Check the Cluster's Network ACL List",
			fmt.Sprintf("Reading the network ACL list of cluster %s's VPC tier, to say what CloudStack's destroy revokes from "+
				"it, failed: %v. The delete checks again and restores what other clusters and you need.", id, err))
		return
	}
	if lines := impact.Describe(); len(lines) > 0 {
		diags.AddWarning("Destroy Changes a Shared Network ACL List",
			fmt.Sprintf("Destroying cluster %s changes the network ACL list of its VPC tier beyond the cluster:\n- %s",
				id, strings.Join(lines, "\n- ")))
	}
}
