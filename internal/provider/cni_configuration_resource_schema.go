package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/catalogops"
)

// cniConfigurationResourceModel is cks_cni_configuration's state.
type cniConfigurationResourceModel struct {
	ID        types.String `tfsdk:"id"`
	Name      types.String `tfsdk:"name"`
	CNIConfig types.String `tfsdk:"cni_config"`
	Params    types.Set    `tfsdk:"params"`
	Account   types.String `tfsdk:"account"`
	DomainID  types.String `tfsdk:"domain_id"`
	ProjectID types.String `tfsdk:"project_id"`
}

// userDataMaxLength is vm.userdata.max.length's default, the longest user
// data CloudStack takes, base64 encoded (UserDataManagerImpl).
const userDataMaxLength = 32768

const cniConfigurationDescription = "A CNI configuration (CloudStack 4.21+) for `cks_cluster.cni_configuration_id`: " +
	"`registerCniConfiguration` stores it as user data of its owner, with the names of the variables it declares, " +
	"which `cks_cluster.cni_config_details` fills. Every change replaces it. A plan that would delete a configuration " +
	"that clusters were created with fails and names them: CloudStack would delete it, and then fail every list of " +
	"clusters that holds one of them (`KubernetesClusterManagerImpl.createKubernetesClusterResponse` reads the " +
	"configuration and gets null). Imports by id or by identity."

func (r *cniConfigurationResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{MarkdownDescription: cniConfigurationDescription, Attributes: map[string]schema.Attribute{
		"id": computedStable("Id of the CNI configuration (a user data id)."),
		"name": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "Name of the configuration, unique in its account: CloudStack refuses a second user data " +
				"of the same name there, whatever the case. Changing it replaces the configuration.",
			Validators:    []validator.String{stringvalidator.LengthAtLeast(1), notBlank()},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"cni_config": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "The configuration, base64 encoded as CloudStack stores user data, for example " +
				"`base64encode(file(\"calico.yaml\"))`, in the form that function writes, which is the one CloudStack stores " +
				"(standard alphabet, padded, on one line). Up to 32768 characters unless the administrator raised `vm.userdata.max.length`. " +
				"Changing it replaces the configuration.",
			Validators:    []validator.String{userDataValidator()},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"params": schema.SetAttribute{
			Optional:    true,
			ElementType: types.StringType,
			MarkdownDescription: "Names of the variables the configuration declares, which clusters fill with " +
				"`cks_cluster.cni_config_details`. CloudStack stores them as one comma-separated list. Changing them replaces " +
				"the configuration.",
			Validators: []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(
				stringvalidator.LengthAtLeast(1), notBlank(),
				stringvalidator.RegexMatches(noComma, "must not contain a comma: CloudStack stores the names as one comma-separated list"))},
			PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
		},
		"account": ownership("account", "Account that owns the configuration. Needs `domain_id`. Conflicts with "+
			"`project_id`. Defaults to the caller's account.", "configuration"),
		"domain_id": ownership("domain_id", "Id of the domain of `account`, and only with `account`.", "configuration"),
		"project_id": ownership("project_id", "Id of the project that owns the configuration. Conflicts with `account` "+
			"and `domain_id`.", "configuration"),
	}}
}

// noComma matches a value without a comma.
var noComma = regexp.MustCompile(`^[^,]*$`)

// userDataValidator refuses what registerCniConfiguration refuses that a
// plan can tell, a value that is not base64 or is empty once decoded
// (UserDataManagerImpl.validateUserData), and base64 CloudStack would store
// otherwise: it stores the bytes re-encoded (standard alphabet, padding, no
// line breaks), so any other form would read back different, and a
// required input that reads back different plans a replacement forever.
// base64encode() writes that form. It warns above the default
// vm.userdata.max.length, which the administrator may have raised.
func userDataValidator() validator.String {
	return userDataCheck{}
}

type userDataCheck struct{}

func (userDataCheck) Description(context.Context) string {
	return "value must be base64 as base64encode() writes it (standard alphabet, padded, on one line), not empty once decoded"
}

func (c userDataCheck) MarkdownDescription(ctx context.Context) string { return c.Description(ctx) }

func (userDataCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if !known(req.ConfigValue) {
		return
	}
	value := req.ConfigValue.ValueString()
	data, err := catalogops.DecodeUserData(value)
	switch {
	case err != nil:
		resp.Diagnostics.AddAttributeError(req.Path, "CNI Configuration Not Base64",
			fmt.Sprintf("%s must be base64 encoded, as CloudStack stores user data (it refuses anything else with "+
				"\"User data is not base64 encoded\"): use base64encode(file(\"calico.yaml\")). %s", req.Path, err))
	case len(data) == 0:
		resp.Diagnostics.AddAttributeError(req.Path, "Empty CNI Configuration", req.Path.String()+" decodes to nothing.")
	case base64.StdEncoding.EncodeToString(data) != value:
		resp.Diagnostics.AddAttributeError(req.Path, "CNI Configuration Not in CloudStack's Base64",
			fmt.Sprintf("%s is base64, but not in the form CloudStack stores (standard alphabet, padded, on one line): "+
				"CloudStack would store it re-encoded, so every plan would replace it. Write it with base64encode(), "+
				"which gives that form.", req.Path))
	case len(value) > userDataMaxLength:
		resp.Diagnostics.AddAttributeWarning(req.Path, "CNI Configuration Longer Than the Default Limit",
			fmt.Sprintf("%s is %d characters long, above the %d that vm.userdata.max.length allows by default: CloudStack "+
				"refuses it unless an administrator raised that setting.", req.Path, len(value), userDataMaxLength))
	}
}
