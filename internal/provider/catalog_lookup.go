package provider

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

// The look-up data sources (cks_zone, cks_service_offering, cks_network,
// cks_project) share how they are asked: an exact name or a name_regex,
// exactly one match, and an error naming every match otherwise.

// lookupAttributes are the name, name_regex and id attributes of a look-up
// data source for kind ("zone", "service offering", ...).
func lookupAttributes(kind, example string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"name": schema.StringAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: fmt.Sprintf("Exact name of the %s, for example `%s` (case-sensitive). Exactly one of `name` "+
				"and `name_regex` must be set.", kind, example),
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"name_regex": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: fmt.Sprintf("Regular expression (Go RE2 syntax) the %s's name must match, for when "+
				"several names may fit; anchor it (`^...$`) to match a whole name. It must match exactly one.", kind),
			Validators: []validator.String{regexpSyntaxValidator()},
		},
		"id": schema.StringAttribute{Computed: true, MarkdownDescription: fmt.Sprintf("Id of the %s.", kind)},
	}
}

// lookupValidators require exactly one of name and name_regex.
func lookupValidators() []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("name"), path.MatchRoot("name_regex")),
	}
}

// lookupDescription is the description of a look-up data source.
func lookupDescription(what, use string) string {
	return fmt.Sprintf("Looks up %s by exact name or by regular expression, and gives its id for %s. Exactly one must "+
		"match: CloudStack does not keep names unique, so when none or several do, the error names every match, or "+
		"what is visible when nothing matched, sorted by name.", what, use)
}

// nameMatchOf is the engine's match for a configuration's name or
// name_regex (validated already).
func nameMatchOf(name, nameRegex types.String) clusterops.NameMatch {
	if !nameRegex.IsNull() {
		return clusterops.NameMatch{Regex: regexp.MustCompile(nameRegex.ValueString())}
	}
	return clusterops.NameMatch{Name: name.ValueString()}
}

// addLookupError reports a failed look-up against the attribute that asked
// for it.
func addLookupError(diags *diag.Diagnostics, err error, title string, nameRegex types.String) {
	var listErr *clusterops.ListError
	if errors.As(err, &listErr) {
		diags.AddError("Unable to List "+title+"s", sentence(err.Error()))
		return
	}
	attr := path.Root("name")
	if !nameRegex.IsNull() {
		attr = path.Root("name_regex")
	}
	summary := title + " Not Found"
	var le *clusterops.LookupError
	if errors.As(err, &le) && le.Ambiguous() {
		summary = "Several " + title + "s Match"
	}
	detail := sentence(err.Error())
	diags.AddAttributeError(attr, summary, strings.ToUpper(detail[:1])+detail[1:])
}
