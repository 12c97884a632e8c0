package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/catalogops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// versionCleanupTimeout bounds the delete of a version whose ISO failed to
// download; it runs on a context of its own, since the create's may be over.
const versionCleanupTimeout = 5 * time.Minute

// refresh records what CloudStack reports of a version. url is read from
// the ISO only when the state has none (after an import or a move): the
// ISO keeps the URL it was registered with. checksum is never returned as
// sent, and keeps its value.
func (m *kubernetesVersionResourceModel) refresh(v cloudstack.KubernetesVersion, iso *cloudstack.ISO) {
	m.ID = types.StringValue(v.ID)
	m.Name = types.StringValue(v.Name)
	m.SemanticVersion = types.StringValue(v.SemanticVersion)
	m.ZoneID = stringOrNull(v.ZoneID)
	m.MinCPUNumber = types.Int64Value(int64(v.MinCPUNumber))
	m.MinMemory = types.Int64Value(int64(v.MinMemory))
	m.DirectDownload = types.BoolValue(v.DirectDownload)
	m.Arch = stringOrNull(v.Arch)
	m.State = types.StringValue(v.State)
	m.ISOID = stringOrNull(v.ISOID)
	m.ISOName = stringOrNull(v.ISOName)
	m.ISOState = stringOrNull(v.ISOState)
	m.SupportsHA = types.BoolValue(v.SupportsHA)
	m.SupportsAutoscaling = types.BoolValue(v.SupportsAutoscaling)
	if iso != nil && iso.URL != "" && knownString(m.URL) == "" {
		m.URL = types.StringValue(iso.URL)
	}
}

func (m *kubernetesVersionResourceModel) addParams() cloudstack.AddVersionParams {
	return cloudstack.AddVersionParams{
		Name:            knownString(m.Name),
		SemanticVersion: m.SemanticVersion.ValueString(),
		ZoneID:          knownString(m.ZoneID),
		URL:             m.URL.ValueString(),
		Checksum:        knownString(m.Checksum),
		MinCPUNumber:    int(m.MinCPUNumber.ValueInt64()),
		MinMemory:       int(m.MinMemory.ValueInt64()),
		DirectDownload:  m.DirectDownload.ValueBool(),
		Arch:            knownString(m.Arch),
	}
}

// Create registers the version, records it, and waits for its ISO: a
// download that fails deletes the version again (no cluster could ever use
// it) and says why; one that outlasts timeouts.create leaves the version
// recorded, and the error taints it.
func (r *kubernetesVersionResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan kubernetesVersionResourceModel
	if !decodeConfigured(ctx, req.Plan, &plan, r.data, &resp.Diagnostics) {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultVersionCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := r.engine().AddVersion(ctx, plan.addParams())
	if err != nil {
		addVersionError(&resp.Diagnostics, err)
		return
	}
	if res.Adopted {
		resp.Diagnostics.AddWarning("Registration Answer Lost",
			fmt.Sprintf("The answer to addKubernetesSupportedVersion was lost (%s). Version %s (%s) is new and matches every "+
				"parameter, so it is recorded as the one this apply registered.", res.LostErr, res.Version.Name, res.Version.ID))
	}
	id := res.Version.ID
	ctx = tflog.SetField(ctx, "version_id", id)
	planned := plan
	plan.refresh(res.Version, nil)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(setIdentity(ctx, resp.Identity, plan.ID)...)

	v, err := r.engine().WaitVersionReady(ctx, id, func(p catalogops.Progress) {
		tflog.Info(ctx, "Kubernetes version ISO downloading", map[string]any{"iso_state": p.State, "iso_status": p.Status,
			"download_percent": p.Percent, "elapsed_s": int(p.Elapsed.Seconds())})
	})
	if err != nil {
		r.reportWaitError(ctx, id, err, &resp.State, &resp.Diagnostics)
		return
	}
	if planned.State.ValueString() == versionDisabled {
		if v, err = r.engine().SetVersionState(ctx, id, versionDisabled); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("state"), "Unable to Disable Kubernetes Version",
				fmt.Sprintf("Version %s is registered and its ISO is Ready, but disabling it failed: %s. The next apply "+
					"disables it.", id, err))
			return
		}
	}
	plan.refresh(v, nil)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// addVersionError reports a failed add against the attribute CloudStack's
// message is about.
func addVersionError(diags *diag.Diagnostics, err error) {
	var refused *catalogops.RefusedError
	if !errors.As(err, &refused) {
		diags.AddError("Unable to Register Kubernetes Version", err.Error())
		return
	}
	if cloudstack.ParseError(err).ErrorCode == 432 {
		diags.AddError("Kubernetes Version Refused", err.Error()+". addKubernetesSupportedVersion is for root admins: "+
			"configure the provider with a root admin's keys. Nothing was registered.")
		return
	}
	text := strings.ToLower(err.Error())
	for _, m := range []struct{ fragment, attr string }{
		{"mincpunumber", "min_cpu_number"}, {"minmemory", "min_memory"}, {"version format", "semantic_version"},
		{"minimum version supported", "semantic_version"}, {"invalid url", "url"}, {"zone", "zone_id"},
	} {
		if strings.Contains(text, m.fragment) {
			diags.AddAttributeError(path.Root(m.attr), "Kubernetes Version Refused", err.Error()+". Nothing was registered.")
			return
		}
	}
	diags.AddError("Kubernetes Version Refused", err.Error()+". Nothing was registered.")
}

// reportWaitError says how the wait for the ISO ended: a failed download
// deletes the version (it can never be used), unless the delete fails too.
func (r *kubernetesVersionResource) reportWaitError(ctx context.Context, id string, err error, state interface {
	RemoveResource(context.Context)
}, diags *diag.Diagnostics,
) {
	var failed *catalogops.DownloadFailedError
	if !errors.As(err, &failed) {
		diags.AddError("Kubernetes Version ISO Not Ready", fmt.Sprintf("%s. The version is recorded and, being "+
			"tainted, is deleted and registered again by the next apply; raise timeouts.create if the ISO needs longer.",
			sentence(err.Error())))
		return
	}
	cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), versionCleanupTimeout)
	defer cancel()
	if derr := r.engine().DeleteVersion(cleanup, id); derr != nil {
		diags.AddAttributeError(path.Root("url"), "Kubernetes Version ISO Download Failed", fmt.Sprintf("%s. Deleting the "+
			"version again failed too: %s. It is recorded and, being tainted, deleted by the next apply.", sentence(err.Error()), derr))
		return
	}
	state.RemoveResource(ctx)
	diags.AddAttributeError(path.Root("url"), "Kubernetes Version ISO Download Failed", fmt.Sprintf("%s. No cluster could "+
		"use the version, so it was deleted again; fix url (or checksum) and apply.", sentence(err.Error())))
}

// Read refreshes the version and removes it from state when it is gone.
func (r *kubernetesVersionResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state kubernetesVersionResourceModel
	ok := decodeConfigured(ctx, req.State, &state, r.data, &resp.Diagnostics)
	resp.Diagnostics.Append(setIdentity(ctx, resp.Identity, state.ID)...)
	if !ok {
		return
	}
	v, found := readOrRemove(ctx, "Kubernetes version", state.ID.ValueString(), resp, r.engine().GetVersion)
	if !found {
		return
	}
	var iso *cloudstack.ISO
	if knownString(state.URL) == "" && v.ISOID != "" {
		if got, err := r.engine().GetISO(ctx, v.ISOID); err == nil {
			iso = &got
		}
	}
	state.refresh(v, iso)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update enables or disables the version; every other input replaces it.
func (r *kubernetesVersionResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer func() { resp.Diagnostics.Append(identityFromState(ctx, resp.State, resp.Identity)...) }()
	var plan, prior kubernetesVersionResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultVersionChangeTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	next := prior
	next.Timeouts = plan.Timeouts
	if want := plan.State.ValueString(); want != prior.State.ValueString() {
		v, err := r.engine().SetVersionState(ctx, prior.ID.ValueString(), want)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("state"), "Unable to Change Kubernetes Version State",
				fmt.Sprintf("Setting version %s to %s failed: %s", prior.ID.ValueString(), want, err))
			resp.Diagnostics.Append(resp.State.Set(ctx, &prior)...)
			return
		}
		next.refresh(v, nil)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &next)...)
}

// Delete deletes the version and its ISO; the engine refuses, before the
// delete, while clusters use it (the plan said so already, unless a cluster
// came since).
func (r *kubernetesVersionResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state kubernetesVersionResourceModel
	if !decodeConfigured(ctx, req.State, &state, r.data, &resp.Diagnostics) {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultVersionChangeTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := r.engine().DeleteVersion(ctx, state.ID.ValueString()); err != nil {
		var inUse *catalogops.InUseError
		if errors.As(err, &inUse) {
			resp.Diagnostics.AddError("Kubernetes Version In Use", sentence(err.Error())+" Nothing was deleted.")
			return
		}
		resp.Diagnostics.AddError("Unable to Delete Kubernetes Version", fmt.Sprintf("Deleting version %s failed: %s",
			state.ID.ValueString(), err))
	}
}
