package provider

import (
	"context"

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
