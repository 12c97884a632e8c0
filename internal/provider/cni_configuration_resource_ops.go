package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/catalogops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// refresh records a CNI configuration as CloudStack reports it: cni_config
// is in the one base64 form CloudStack stores, which the schema requires.
func (m *cniConfigurationResourceModel) refresh(ctx context.Context, c cloudstack.CNIConfiguration) diag.Diagnostics {
	m.ID = types.StringValue(c.ID)
	m.Name = types.StringValue(c.Name)
	m.CNIConfig = types.StringValue(c.UserData)
	var diags diag.Diagnostics
	m.Params = types.SetNull(types.StringType)
	if len(c.Params) > 0 {
		m.Params, diags = types.SetValueFrom(ctx, types.StringType, c.Params)
	}
	m.Account = stringOrNull(c.Account)
	m.DomainID = stringOrNull(c.DomainID)
	m.ProjectID = stringOrNull(c.ProjectID)
	return diags
}

func (m *cniConfigurationResourceModel) owner() cloudstack.Ownership {
	return cloudstack.Ownership{Account: knownString(m.Account), DomainID: knownString(m.DomainID), ProjectID: knownString(m.ProjectID)}
}

// Create registers the configuration, never twice (catalogops.Engine.RegisterCNI).
func (r *cniConfigurationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan cniConfigurationResourceModel
	if !decodeConfigured(ctx, req.Plan, &plan, r.data, &resp.Diagnostics) {
		return
	}
	var params []string
	resp.Diagnostics.Append(plan.Params.ElementsAs(ctx, &params, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// A set has no order; CloudStack keeps the list as sent.
	slices.Sort(params)
	res, err := r.engine().RegisterCNI(ctx, cloudstack.RegisterCNIParams{Ownership: plan.owner(), Name: plan.Name.ValueString(),
		Config: plan.CNIConfig.ValueString(), Params: params})
	if err != nil {
		registerCNIError(&resp.Diagnostics, err)
		return
	}
	if res.Adopted {
		resp.Diagnostics.AddWarning("Registration Answer Lost",
			fmt.Sprintf("The answer to registerCniConfiguration was lost (%s). Configuration %s (%s) holds what was sent, "+
				"so it is recorded as the one this apply registered.", res.LostErr, res.Config.Name, res.Config.ID))
	}
	resp.Diagnostics.Append(plan.refresh(ctx, res.Config)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(setIdentity(ctx, resp.Identity, plan.ID)...)
}

// registerCNIError reports a failed register against the attribute it is
// about.
func registerCNIError(diags *diag.Diagnostics, err error) {
	var taken *catalogops.NameTakenError
	if errors.As(err, &taken) {
		diags.AddAttributeError(path.Root("name"), "CNI Configuration Name Taken", sentence(err.Error())+
			fmt.Sprintf(" Its id for an import block or terraform import: %s.", taken.Existing.ID))
		return
	}
	var refused *catalogops.RefusedError
	if !errors.As(err, &refused) {
		diags.AddError("Unable to Register CNI Configuration", err.Error())
		return
	}
	text := strings.ToLower(err.Error())
	for _, m := range []struct{ fragment, attr string }{
		{"user data", "cni_config"}, {"userdata", "name"}, {"params", "params"}, {"project", "project_id"}, {"account", "account"},
	} {
		if strings.Contains(text, m.fragment) {
			diags.AddAttributeError(path.Root(m.attr), "CNI Configuration Refused", err.Error()+". Nothing was registered.")
			return
		}
	}
	diags.AddError("CNI Configuration Refused", err.Error()+". Nothing was registered.")
}

// Read refreshes the configuration and removes it from state when it is
// gone.
func (r *cniConfigurationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state cniConfigurationResourceModel
	ok := decodeConfigured(ctx, req.State, &state, r.data, &resp.Diagnostics)
	resp.Diagnostics.Append(setIdentity(ctx, resp.Identity, state.ID)...)
	if !ok {
		return
	}
	c, found := readOrRemove(ctx, "CNI configuration", state.ID.ValueString(), resp, r.engine().GetCNI)
	if !found {
		return
	}
	resp.Diagnostics.Append(state.refresh(ctx, c)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update has nothing to do: every attribute replaces the configuration.
func (r *cniConfigurationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer func() { resp.Diagnostics.Append(identityFromState(ctx, resp.State, resp.Identity)...) }()
	var plan cniConfigurationResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete deletes the configuration; the engine refuses, before the delete,
// while clusters refer to it.
func (r *cniConfigurationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state cniConfigurationResourceModel
	if !decodeConfigured(ctx, req.State, &state, r.data, &resp.Diagnostics) {
		return
	}
	if err := r.engine().DeleteCNI(ctx, state.ID.ValueString(), state.owner()); err != nil {
		var inUse *catalogops.InUseError
		if errors.As(err, &inUse) {
			resp.Diagnostics.AddError("CNI Configuration In Use", sentence(err.Error())+" Nothing was deleted.")
			return
		}
		resp.Diagnostics.AddError("Unable to Delete CNI Configuration", fmt.Sprintf("Deleting CNI configuration %s failed: %s",
			state.ID.ValueString(), err))
	}
}

// ModifyPlan fails a plan that deletes a configuration clusters were
// created with, unless the same plan deletes them first.
func (r *cniConfigurationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || r.data == nil {
		return
	}
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	refuseDeleteInUse(ctx, req, resp, s.Schema, "CNI configuration", func(id string) ([]catalogops.ClusterRef, error) {
		return r.engine().CNIUsers(ctx, id)
	}, r.data.deletions, catalogops.CNIInUseWhy)
}
