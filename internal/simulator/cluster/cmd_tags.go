package cluster

import (
	"maps"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// Resource tags of VMs (TaggedResourceManagerImpl.createTags, deleteTags),
// which a client may use to record what CloudStack does not: the provider
// marks the VMs it joins to a cluster with them.

const cmdPkgTag = "org.apache.cloudstack.api.command.user.tag."

// tagParams resolves resourceids and resourcetype: only UserVm is modelled.
func (s *Workers) tagParams(c *core.Caller, p wire.Params) ([]*model.VM, *wire.APIError) {
	for _, name := range []string{"resourceids", "resourcetype"} {
		if _, err := p.Require(name); err != nil {
			return nil, err
		}
	}
	if !strings.EqualFold(p.Str("resourcetype"), "UserVm") {
		return nil, wire.InvalidParam("The simulator tags only UserVm resources, not %s", p.Str("resourcetype"))
	}
	var out []*model.VM
	for _, id := range p.List("resourceids") {
		v := s.DB.VM(id)
		if v == nil {
			return nil, wire.InvalidParam("Unable to find resource by id %s and type UserVm", id)
		}
		if err := s.CheckAccess(c, v.AccountID, "VM "+v.Name); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func cmdCreateTags(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	vms, err := s.tagParams(c, p)
	if err != nil {
		return nil, err
	}
	tags := map[string]string{}
	for _, e := range p.MapEntries("tags") {
		if e["key"] == "" {
			return nil, wire.InvalidParam("Tag key can't be empty")
		}
		tags[e["key"]] = e["value"]
	}
	if len(tags) == 0 {
		return nil, wire.MissingParam("createTags", "tags")
	}
	// The job checks each key in one transaction: an empty value or a key
	// the VM has fails it, and nothing is written.
	j := s.StartJob(c, cmdPkgTag+"CreateTagsCmd", "", "", 1, func(jr *core.JobRun) (any, *wire.APIError) {
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			if tags[k] == "" {
				return nil, wire.InvalidParam("Value for the key %s is either null or empty", k)
			}
			for _, v := range vms {
				if _, ok := v.Tags[k]; ok {
					return nil, wire.InternalError("tag %s already on UserVm with id %s", k, v.ID)
				}
			}
		}
		for _, v := range vms {
			if v.Tags == nil {
				v.Tags = map[string]string{}
			}
			maps.Copy(v.Tags, tags)
		}
		return map[string]any{"success": true}, nil
	})
	return map[string]any{"jobid": j.ID}, nil
}

// cmdDeleteTags deletes the tags given (a key alone matches any value), or
// every tag of the resources when none is given.
func cmdDeleteTags(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	vms, err := s.tagParams(c, p)
	if err != nil {
		return nil, err
	}
	want := p.MapEntries("tags")
	j := s.StartJob(c, cmdPkgTag+"DeleteTagsCmd", "", "", 1, func(jr *core.JobRun) (any, *wire.APIError) {
		for _, v := range vms {
			maps.DeleteFunc(v.Tags, func(k, val string) bool {
				return len(want) == 0 || slices.ContainsFunc(want, func(e map[string]string) bool {
					return strings.EqualFold(e["key"], k) && (e["value"] == "" || strings.EqualFold(e["value"], val))
				})
			})
		}
		return map[string]any{"success": true}, nil
	})
	return map[string]any{"jobid": j.ID}, nil
}

// renderTags is a VM's tags as ResourceTagResponses.
func (s *Workers) renderTags(v *model.VM) []any {
	out := []any{}
	for _, k := range slices.Sorted(maps.Keys(v.Tags)) {
		t := map[string]any{"key": k, "value": v.Tags[k], "resourcetype": "UserVm", "resourceid": v.ID}
		s.OwnerFields(t, v.AccountID)
		out = append(out, t)
	}
	return out
}
