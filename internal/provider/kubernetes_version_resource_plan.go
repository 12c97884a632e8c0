package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/catalogops"
)

// ModifyPlan fails a plan that deletes a version clusters still use: a
// destroy, or a change that replaces the version. CloudStack's delete job
// would refuse (KubernetesVersionManagerImpl.deleteKubernetesSupportedVersion),
// after the rest of the apply had run. Clusters the same plan deletes before
// the version do not count (planned_deletions.go).
func (r *kubernetesVersionResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || r.data == nil {
		return // a create, or a provider configured only at apply
	}
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	refuseDeleteInUse(ctx, req, resp, s.Schema, "Kubernetes version", func(id string) ([]catalogops.ClusterRef, error) {
		return r.engine().VersionUsers(ctx, id)
	}, r.data.deletions, catalogops.VersionInUseWhy)
}

// refuseDeleteInUse fails a plan that deletes (or replaces) an object that
// clusters still refer to, naming them and saying why (catalogops' Why). Shared by the
// resources a cluster refers to: cks_kubernetes_version and
// cks_cni_configuration.
func refuseDeleteInUse(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, s schema.Schema,
	what string, users func(id string) ([]catalogops.ClusterRef, error), deleted *plannedDeletions, why string,
) {
	var replacing path.Paths
	if !req.Plan.Raw.IsNull() {
		replacing = append(replacingAttributes(ctx, s, req, &resp.Diagnostics), resp.RequiresReplace...)
		if len(replacing) == 0 {
			return
		}
	}
	id := stateID(ctx, req)
	found, err := users(id)
	if err != nil {
		resp.Diagnostics.AddError("Unable to Check Who Uses the "+titleCase(what),
			fmt.Sprintf("The plan deletes %s %s, and listing the clusters that may use it failed: %s. Nothing is "+
				"deleted while that is not known; plan again.", what, id, err))
		return
	}
	found = slices.DeleteFunc(found, func(c catalogops.ClusterRef) bool { return deleted.hasCluster(c.ID) })
	if len(found) == 0 {
		return
	}
	detail := (&catalogops.InUseError{What: what, ID: id, Clusters: found, Why: why}).Error()
	summary := titleCase(what) + " In Use"
	if len(replacing) == 0 {
		resp.Diagnostics.AddError(summary, "This plan deletes it. "+detail)
		return
	}
	names := make([]string, 0, len(replacing))
	for _, p := range replacing {
		names = append(names, p.String())
	}
	slices.Sort(names)
	names = slices.Compact(names)
	resp.Diagnostics.Append(diag.NewAttributeErrorDiagnostic(path.Root(names[0]), summary,
		fmt.Sprintf("Changing %s replaces it, which deletes it. %s", strings.Join(names, ", "), detail)))
}

// titleCase capitalises each word: "CNI configuration" becomes "CNI
// Configuration".
func titleCase(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}
