package catalog

import (
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// templateFilters are ListTemplatesCmd's templatefilter values.
var templateFilters = []string{"featured", "self", "selfexecutable", "sharedexecutable", "executable", "community", "all"}

// cmdListTemplates is ListTemplatesCmd over the seeded templates, which are
// public and ready: id, name, keyword and forcks filter. forcks is in the
// response with details=all (TemplateJoinDaoImpl.newTemplateResponse sets it
// only then), which the simulator takes to be the default, as for
// listVirtualMachines.
func cmdListTemplates(s *Catalog, _ *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	filter, err := p.Require("templatefilter")
	if err != nil {
		return nil, err
	}
	if !slices.Contains(templateFilters, filter) {
		return nil, wire.InvalidParam("Invalid template filter %s, valid values are: %s", filter, strings.Join(templateFilters, ", "))
	}
	if _, err := wire.ResolveParam(p, "id", s.DB.Template); err != nil {
		return nil, err
	}
	forCks, forCksGiven := p.Bool("forcks")
	details := p.List("details")
	withDetails := len(details) == 0 || slices.ContainsFunc(details, func(d string) bool { return strings.EqualFold(d, "all") })
	var matched []*model.Template
	for _, t := range s.DB.Templates {
		switch {
		case p.Has("id") && !strings.EqualFold(p.Str("id"), t.ID),
			p.Has("name") && !strings.EqualFold(p.Str("name"), t.Name),
			forCksGiven && forCks != t.ForCKS,
			!wire.MatchesKeyword(p, t.Name):
			continue
		}
		matched = append(matched, t)
	}
	return core.ListBodyOf(s.Runtime, p, "template", matched, func(t *model.Template) map[string]any {
		out := map[string]any{"id": t.ID, "name": t.Name, "displaytext": t.DisplayText, "isready": true,
			"ispublic": true, "isfeatured": true, "format": "QCOW2", "hypervisor": "KVM", "templatetype": "USER",
			"zoneid": s.DB.SeedIDs.Zone, "created": wire.CSTime(t.Created), "ostypeid": s.DB.SeedIDs.GuestOS}
		if t.ID == s.DB.SeedIDs.SystemVMTemplate {
			out["templatetype"] = "SYSTEM"
		}
		if withDetails {
			out["forcks"] = t.ForCKS
		}
		return out
	})
}
