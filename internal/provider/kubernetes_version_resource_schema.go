package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/kubeversion"
)

// kubernetesVersionResourceModel is cks_kubernetes_version's state.
type kubernetesVersionResourceModel struct {
	ID                  types.String   `tfsdk:"id"`
	SemanticVersion     types.String   `tfsdk:"semantic_version"`
	Name                types.String   `tfsdk:"name"`
	ZoneID              types.String   `tfsdk:"zone_id"`
	URL                 types.String   `tfsdk:"url"`
	Checksum            types.String   `tfsdk:"checksum"`
	MinCPUNumber        types.Int64    `tfsdk:"min_cpu_number"`
	MinMemory           types.Int64    `tfsdk:"min_memory"`
	DirectDownload      types.Bool     `tfsdk:"direct_download"`
	Arch                types.String   `tfsdk:"arch"`
	State               types.String   `tfsdk:"state"`
	ISOID               types.String   `tfsdk:"iso_id"`
	ISOName             types.String   `tfsdk:"iso_name"`
	ISOState            types.String   `tfsdk:"iso_state"`
	SupportsHA          types.Bool     `tfsdk:"supports_ha"`
	SupportsAutoscaling types.Bool     `tfsdk:"supports_autoscaling"`
	Timeouts            timeouts.Value `tfsdk:"timeouts"`
}

// Version states (KubernetesSupportedVersion.State), which
// updateKubernetesSupportedVersion takes by their exact names.
const (
	versionEnabled  = "Enabled"
	versionDisabled = "Disabled"
)

// defaultVersionCreateTimeout bounds the ISO's download; binaries ISOs are
// some hundred megabytes to a few gigabytes.
const defaultVersionCreateTimeout = 30 * time.Minute

const kubernetesVersionResourceDescription = "Registers a Kubernetes release as a CKS version (`addKubernetesSupportedVersion`, " +
	"for root admins): CloudStack registers its binaries ISO from `url` and downloads it in the background. The create " +
	"waits until the ISO is `Ready`, logging the download's progress, within `timeouts.create`, and fails with the image " +
	"store's reason when the download fails (the version is then deleted again, since no cluster can use it). `state` " +
	"enables and disables the version in place; every other change replaces it. A plan that would delete a version that " +
	"clusters still use fails and names them, since CloudStack refuses to delete it " +
	"(`KubernetesVersionManagerImpl.deleteKubernetesSupportedVersion`), unless the same plan deletes those clusters " +
	"first. Imports by id or by identity. The `cks_kubernetes_version` data source looks versions up."

func (r *kubernetesVersionResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{MarkdownDescription: kubernetesVersionResourceDescription, Attributes: map[string]schema.Attribute{
		"id": computedStable("Id of the Kubernetes version."),
		"semantic_version": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "Kubernetes release of the binaries ISO, `MAJOR.MINOR.PATCH` such as `1.34.2`; CKS adds " +
				"versions from 1.11.0. Changing it replaces the version.",
			Validators:    []validator.String{registrableVersion()},
			PlanModifiers: replace,
		},
		"name": schema.StringAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: "Name of the version. Defaults to what CloudStack gives it: `v<semantic_version>`, followed " +
				"by `-<zone name>` for a zone's version. CloudStack does not require names to be unique. Changing it replaces the version.",
			Validators:    []validator.String{stringvalidator.LengthAtLeast(1), notBlank()},
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
		},
		"zone_id": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Id of the zone the version is for. Without it the version is for every zone. Changing it replaces the version.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers:       replace,
		},
		"url": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "URL of the binaries ISO (built with `create-kubernetes-binaries-iso.sh`), which CloudStack's " +
				"image store downloads. Read back from the ISO, so an import fills it in. Changing it replaces the version.",
			Validators:    []validator.String{stringvalidator.LengthAtLeast(1), notBlank()},
			PlanModifiers: replace,
		},
		"checksum": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Checksum of the ISO, with its algorithm as a prefix, for example `{SHA-256}<hex>` (plain " +
				"hex is taken as MD5). CloudStack returns it without the prefix, so the configured value is kept and an " +
				"import leaves it null. Changing it replaces the version, except from null (an imported version).",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(replaceStringUnlessImported,
				replaceUnlessImportedDescription, replaceUnlessImportedDescription)},
		},
		"min_cpu_number": schema.Int64Attribute{
			Required:            true,
			MarkdownDescription: "Fewest vCPUs a node offering must have for clusters of this version; at least 2. Changing it replaces the version.",
			Validators:          []validator.Int64{int64validator.AtLeast(2)},
			PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
		"min_memory": schema.Int64Attribute{
			Required:            true,
			MarkdownDescription: "Least memory in MiB a node offering must have for clusters of this version; at least 2048. Changing it replaces the version.",
			Validators:          []validator.Int64{int64validator.AtLeast(2048)},
			PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
		"direct_download": schema.BoolAttribute{
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(false),
			MarkdownDescription: "Default `false`. With `true` the ISO bypasses secondary storage: it is `Ready` at once and " +
				"each host downloads it when a node needs it (required in Edge zones). Changing it replaces the version.",
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
		},
		"arch": schema.StringAttribute{
			Optional:            true,
			Computed:            true,
			MarkdownDescription: "CPU architecture of the ISO: `x86_64` (CloudStack's default), `aarch64` or `s390x`. Changing it replaces the version.",
			Validators:          []validator.String{stringvalidator.OneOf("x86_64", "aarch64", "s390x")},
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
		},
		"state": schema.StringAttribute{
			Optional: true,
			Computed: true,
			Default:  stringdefault.StaticString(versionEnabled),
			MarkdownDescription: "`Enabled` (default) or `Disabled`, changed in place. A Disabled version is hidden from " +
				"users; no cluster can be created with it or upgraded to it, and the clusters that run it go on. A version " +
				"created `Disabled` is disabled once its ISO is Ready.",
			Validators: []validator.String{stringvalidator.OneOf(versionEnabled, versionDisabled)},
		},
		"iso_id":               computedStable("Id of the binaries ISO CloudStack registered for the version."),
		"iso_name":             computedStable("Name of the ISO: `<name>-Kubernetes-Binaries-ISO`."),
		"iso_state":            computedStable("State of the ISO in the version, `Ready` once it is downloaded."),
		"supports_ha":          computedStableBool("Whether clusters of this version may have more than one control node (1.16.0 and later)."),
		"supports_autoscaling": computedStableBool("Whether clusters of this version support the cluster autoscaler."),
		"timeouts":             versionTimeouts(ctx),
	}}
}

func computedStableBool(description string) schema.BoolAttribute {
	return schema.BoolAttribute{Computed: true, MarkdownDescription: description,
		PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()}}
}

func versionTimeouts(ctx context.Context) schema.Attribute {
	return checkedTimeouts(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}, fmt.Sprintf("How long to wait, as Go durations such as `45m`: `create` for the ISO's "+
		"download (default `%dm`), `update` and `delete` for the state change and the delete job (default `%dm`).",
		int(defaultVersionCreateTimeout.Minutes()), int(defaultVersionChangeTimeout.Minutes())))
}

// registrableVersion accepts what addKubernetesSupportedVersion accepts:
// dot-separated numbers with at least three parts
// (AddKubernetesSupportedVersionCmd.getSemanticVersion,
// KubernetesVersionManagerImpl.compareSemanticVersions), from 1.11.0
// (KubernetesVersionService.MIN_KUBERNETES_VERSION).
func registrableVersion() validator.String {
	return stringCheck{description: "value must be a semantic version MAJOR.MINOR.PATCH of 1.11.0 or later",
		summary: "Invalid Semantic Version", check: func(v string) error {
			if !registrableVersionSyntax.MatchString(v) {
				return fmt.Errorf("%q is not MAJOR.MINOR.PATCH in digits, such as 1.34.2 (CloudStack takes no \"v\" or suffix)", v)
			}
			// The first three parts decide: more are allowed, and count less.
			head, err := kubeversion.Parse(strings.Join(strings.Split(v, ".")[:3], "."))
			if err == nil && head.Compare(kubeversion.Version{Major: 1, Minor: 11}) < 0 {
				return fmt.Errorf("%s is older than 1.11.0, the first version CKS adds", v)
			}
			return nil
		}}
}

var registrableVersionSyntax = regexp.MustCompile(`^[0-9]+(\.[0-9]+){2,}$`)
