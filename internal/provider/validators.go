package provider

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/kubeversion"
)

// semanticVersionValidator rejects values that are not major.minor[.patch].
type semanticVersionValidator struct{}

func (semanticVersionValidator) Description(context.Context) string {
	return "value must be a Kubernetes semantic version such as 1.33.13"
}

func (v semanticVersionValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (semanticVersionValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := kubeversion.Parse(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Semantic Version", err.Error())
	}
}

// cidrValidator rejects values that are not IPv4 or IPv6 CIDRs.
type cidrValidator struct{}

func (cidrValidator) Description(context.Context) string {
	return "value must be a CIDR such as 10.0.0.0/8"
}

func (v cidrValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (cidrValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	v := req.ConfigValue.ValueString()
	if _, err := netip.ParsePrefix(v); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid CIDR",
			fmt.Sprintf("%q is not a CIDR (address/prefix length, such as 10.0.0.0/8): %s", v, err))
	}
}
