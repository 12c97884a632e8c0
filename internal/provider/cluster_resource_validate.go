package provider

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

// The rules on cks_cluster's configuration: the validators of one value,
// which the schema names, and ValidateConfig across values.

// ValidateConfig checks the rules that span attributes, so that a bad
// configuration fails at validate/plan time with the attribute at fault and
// before any API call.
func (r *clusterResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg clusterResourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateSizeAndAutoscaling(ctx, cfg, &resp.Diagnostics)
	validateOfferings(cfg, &resp.Diagnostics)
	if at, msg, ignored := etcdTemplateIgnored(cfg.NodeTemplates, cfg.EtcdNodes); ignored {
		resp.Diagnostics.AddAttributeWarning(at, "ETCD Template Ignored", msg)
	}
}

// validateSizeAndAutoscaling is hand-written: each rule depends on the value
// of autoscaling.enabled, which no framework validator reads.
func validateSizeAndAutoscaling(ctx context.Context, cfg clusterResourceModel, diags *diag.Diagnostics) {
	if cfg.Autoscaling.IsUnknown() {
		return
	}
	as, _, d := autoscalingOf(ctx, cfg.Autoscaling)
	if d.HasError() || as.Enabled.IsUnknown() {
		return
	}
	asPath := path.Root("autoscaling")
	if !as.enabled() {
		if cfg.Size.IsNull() {
			diags.AddAttributeError(path.Root("size"), "Missing Cluster Size",
				"size (the number of worker nodes, at least 1) is required unless autoscaling is enabled.")
		}
		return
	}
	if !cfg.Size.IsNull() {
		diags.AddAttributeError(path.Root("size"), "Size Conflicts With Autoscaling",
			"size must not be set while autoscaling is enabled: the autoscaler owns the worker count "+
				"(CloudStack refuses size together with autoscalingenabled). Remove size, or disable autoscaling.")
	}
	if as.MinSize.IsNull() {
		diags.AddAttributeError(asPath.AtName("min_size"), "Missing Autoscaling Minimum",
			"autoscaling.min_size (at least 1) is required when autoscaling is enabled.")
	}
	if as.MaxSize.IsNull() {
		diags.AddAttributeError(asPath.AtName("max_size"), "Missing Autoscaling Maximum",
			"autoscaling.max_size (greater than min_size) is required when autoscaling is enabled.")
	}
	if known(as.MinSize) && known(as.MaxSize) && as.MaxSize.ValueInt64() <= as.MinSize.ValueInt64() {
		diags.AddAttributeError(asPath.AtName("max_size"), "Invalid Autoscaling Range",
			fmt.Sprintf("autoscaling.max_size must be greater than min_size, got max_size %d and min_size %d.",
				as.MaxSize.ValueInt64(), as.MinSize.ValueInt64()))
	}
}

// validateOfferings requires an offering for every node type: CloudStack
// takes service_offering_id for each type without an offering of its own.
// Hand-written: whether etcd needs one depends on the value of etcd_nodes.
func validateOfferings(cfg clusterResourceModel, diags *diag.Diagnostics) {
	if !cfg.ServiceOfferingID.IsNull() {
		return
	}
	var missing []string
	for _, o := range []struct {
		name  string
		value types.String
	}{{"control_offering_id", cfg.ControlOfferingID}, {"worker_offering_id", cfg.WorkerOfferingID}} {
		if o.value.IsNull() {
			missing = append(missing, o.name)
		}
	}
	etcdNeeded := cfg.EtcdNodes.IsUnknown() || (!cfg.EtcdNodes.IsNull() && cfg.EtcdNodes.ValueInt64() > 0)
	if etcdNeeded && cfg.EtcdOfferingID.IsNull() {
		missing = append(missing, "etcd_offering_id")
	}
	if len(missing) > 0 {
		diags.AddAttributeError(path.Root("service_offering_id"), "Missing Compute Offering",
			"service_offering_id is required unless every node type has its own offering; missing: "+strings.Join(missing, ", ")+".")
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

// cidrFamilyErrors reports, against each element of a CIDR list attribute,
// a CIDR of another address family than ip, the address CloudStack keeps
// the cluster's rules on: such a rule would admit no client. Nothing is
// said while the list or the address is not known.
func cidrFamilyErrors(ctx context.Context, diags *diag.Diagnostics, name string, list types.List, ip string, detail func(cidr string) string) {
	cidrs, _ := stringList(ctx, list)
	for i, cidr := range cidrs {
		if clusterops.CheckCIDRFamily(ip, []string{cidr}) != nil {
			diags.AddAttributeError(path.Root(name).AtListIndex(i), "Invalid CIDR", name+"["+strconv.Itoa(i)+"]: "+detail(cidr))
		}
	}
}
