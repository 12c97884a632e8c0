package provider

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/kubeversion"
)

// notBlank refuses a value of only white space. The empty string is left
// to the length validators.
func notBlank() validator.String {
	return stringvalidator.RegexMatches(regexp.MustCompile(`^$|\S`), "must not be blank (only white space)")
}

// semanticVersionValidator rejects values that are not major.minor[.patch].
// Hand-written: kubeversion.Parse is the one definition the provider
// compares versions with; a pattern would be a second one.
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
// Hand-written: the validators module has none, and nettypes is not a
// dependency.
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

// regexpSyntaxValidator rejects values that are not Go (RE2) regular
// expressions. Hand-written: stringvalidator.RegexMatches matches a value
// against a pattern; nothing in the validators module checks that a value
// is one.
type regexpSyntaxValidator struct{}

func (regexpSyntaxValidator) Description(context.Context) string {
	return "value must be a regular expression in Go RE2 syntax"
}

func (v regexpSyntaxValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (regexpSyntaxValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if !known(req.ConfigValue) {
		return
	}
	if _, err := regexp.Compile(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Regular Expression",
			req.Path.String()+" is not a valid regular expression (Go RE2 syntax): "+err.Error())
	}
}
