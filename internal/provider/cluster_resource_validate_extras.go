package provider

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// replaceStringUnlessImported and replaceMapUnlessImported are
// replaceUnlessImported for strings and maps.
func replaceStringUnlessImported(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull()
}

func replaceBoolUnlessImported(_ context.Context, req planmodifier.BoolRequest, resp *boolplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull()
}

func replaceMapUnlessImported(_ context.Context, req planmodifier.MapRequest, resp *mapplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull()
}

// nodeTemplateKeys accepts the node types createKubernetesCluster takes in
// nodetemplates. KubernetesServiceHelperImpl.isValidNodeType matches them
// case-insensitively, so two keys that differ only in case would collapse
// into one; DEFAULT is valid there but ignored for templates.
type nodeTemplateKeys struct{}

func (nodeTemplateKeys) Description(context.Context) string {
	return "keys must be CONTROL, WORKER or ETCD"
}

func (v nodeTemplateKeys) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (nodeTemplateKeys) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if !known(req.ConfigValue) {
		return
	}
	seen := map[string]string{}
	for key := range req.ConfigValue.Elements() {
		upper := strings.ToUpper(key)
		switch upper {
		case "CONTROL", "WORKER", "ETCD":
		case "DEFAULT":
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(key), "Invalid Node Type",
				"CloudStack accepts DEFAULT in nodetemplates but ignores it: the cluster's default template is always the "+
					"zone's CKS template. Use CONTROL, WORKER or ETCD.")
			continue
		default:
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(key), "Invalid Node Type",
				fmt.Sprintf("%q is not a node type; use CONTROL, WORKER or ETCD.", key))
			continue
		}
		if other, dup := seen[upper]; dup {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(key), "Duplicate Node Type",
				fmt.Sprintf("%q and %q name the same node type (CloudStack ignores case).", other, key))
		}
		seen[upper] = key
	}
}

// upperKeys sends node types in upper case, as the server stores them.
func upperKeys(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[strings.ToUpper(k)] = v
	}
	return out
}

// registryURL mirrors KubernetesClusterManagerImpl.validateDockerRegistryParams,
// which parses the URL with java.net.URL: it needs a scheme Java knows and,
// for a registry, a host.
func registryURL() validator.String {
	return stringCheck{description: "value must be a URL with a scheme and host, such as https://registry.example.com",
		summary: "Invalid Registry URL", check: func(v string) error {
			if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("%q is not a URL with a scheme and host, such as https://registry.example.com; "+
					"CloudStack refuses it (\"Invalid docker registry url specified\")", v)
			}
			return nil
		}}
}

// ipAddress accepts an IPv4 or IPv6 address, as NetUtils.isValidIp4 and
// isValidIp6 do.
func ipAddress() validator.String {
	return stringCheck{description: "value must be an IPv4 or IPv6 address", summary: "Invalid IP Address",
		check: func(v string) error {
			if _, err := netip.ParseAddr(v); err != nil {
				return fmt.Errorf("%q is not an IPv4 or IPv6 address", v)
			}
			return nil
		}}
}

// versionFollowsID keeps kubernetes_version while kubernetes_version_id
// stays, and leaves it unknown when an upgrade changes the version.
type versionFollowsID struct{}

func (versionFollowsID) Description(context.Context) string {
	return "Known from the state unless kubernetes_version_id changes."
}

func (m versionFollowsID) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (versionFollowsID) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || !req.PlanValue.IsUnknown() {
		return
	}
	var planned, prior types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("kubernetes_version_id"), &planned)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("kubernetes_version_id"), &prior)...)
	if !resp.Diagnostics.HasError() && planned.Equal(prior) {
		resp.PlanValue = req.StateValue
	}
}

// etcdTemplateIgnored warns that CloudStack ignores an ETCD template when the
// cluster has no separate etcd nodes (createManagedKubernetesCluster sets
// the etcd template only when etcdnodes > 0).
func etcdTemplateIgnored(templates types.Map, etcdNodes types.Int64) (path.Path, string, bool) {
	if !known(templates) || etcdNodes.IsUnknown() || etcdNodes.ValueInt64() > 0 {
		return path.Empty(), "", false
	}
	for key := range templates.Elements() {
		if strings.EqualFold(key, "ETCD") {
			return path.Root("node_templates").AtMapKey(key), "CloudStack ignores the ETCD template of a cluster " +
				"without separate etcd nodes; set etcd_nodes to use it.", true
		}
	}
	return path.Empty(), "", false
}
