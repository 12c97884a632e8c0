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

// stringCheck is a string validator made of a check that no framework
// validator makes; the check's error becomes the diagnostic's detail.
type stringCheck struct {
	description string
	summary     string
	check       func(string) error
}

func (c stringCheck) Description(context.Context) string { return c.description }

func (c stringCheck) MarkdownDescription(ctx context.Context) string { return c.Description(ctx) }

func (c stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if !known(req.ConfigValue) {
		return
	}
	if err := c.check(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, c.summary, req.Path.String()+": "+err.Error())
	}
}

// semanticVersionValidator rejects values that are not major.minor[.patch]:
// kubeversion.Parse is the one definition the provider compares versions
// with; a pattern would be a second one.
func semanticVersionValidator() validator.String {
	return stringCheck{description: "value must be a Kubernetes semantic version such as 1.33.13",
		summary: "Invalid Semantic Version", check: func(v string) error {
			_, err := kubeversion.Parse(v)
			return err
		}}
}

// versionPrefixValidator accepts the leading components of a semantic
// version, such as 1.33.
func versionPrefixValidator() validator.String {
	return stringCheck{description: "value must be the leading components of a Kubernetes version, such as 1.33",
		summary: "Invalid Version Prefix", check: func(v string) error {
			_, err := kubeversion.ParsePrefix(v)
			return err
		}}
}

// cidrValidator rejects values that are not IPv4 or IPv6 CIDRs: the
// validators module has none, and nettypes is not a dependency.
//
// A CIDR with host bits set (10.0.0.5/8) is refused, naming its prefix:
// CloudStack keeps a rule's CIDRs as written (createFirewallRule checks
// them with NetUtils.isValidIp4Cidr and isValidIp6Cidr, which accept host
// bits, and cleans none), while the rule admits the whole prefix; the CIDRs
// the provider compares rules by would then differ from the prefix they
// open, and "10.0.0.5/8" is most often meant as the one address.
func cidrValidator() validator.String {
	return stringCheck{description: "value must be a CIDR such as 10.0.0.0/8, without host bits",
		summary: "Invalid CIDR", check: func(v string) error {
			p, err := netip.ParsePrefix(v)
			if err != nil {
				return fmt.Errorf("%q is not a CIDR (address/prefix length, such as 10.0.0.0/8): %w", v, err)
			}
			if canonical := p.Masked(); canonical != p {
				return fmt.Errorf("%q has host bits set: CloudStack would keep it as written and open the rule to all of "+
					"%s. Write %q for that prefix, or %q for the one address", v, canonical, canonical.String(),
					netip.PrefixFrom(p.Addr(), p.Addr().BitLen()).String())
			}
			return nil
		}}
}

// regexpSyntaxValidator rejects values that are not Go (RE2) regular
// expressions: stringvalidator.RegexMatches matches a value against a
// pattern; nothing in the validators module checks that a value is one.
func regexpSyntaxValidator() validator.String {
	return stringCheck{description: "value must be a regular expression in Go RE2 syntax",
		summary: "Invalid Regular Expression", check: func(v string) error {
			if _, err := regexp.Compile(v); err != nil {
				return fmt.Errorf("not a valid regular expression (Go RE2 syntax): %w", err)
			}
			return nil
		}}
}
