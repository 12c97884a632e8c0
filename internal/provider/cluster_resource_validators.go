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
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

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
