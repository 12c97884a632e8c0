package simulator

import (
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// templateFilters are ListTemplatesCmd's templatefilter values.
var templateFilters = []string{"featured", "self", "selfexecutable", "sharedexecutable", "executable", "community", "all"}

// cmdListTemplates is ListTemplatesCmd over the seeded templates, which are
// public and ready: id, name, keyword and forcks filter. forcks is in the
// response with details=all (TemplateJoinDaoImpl.newTemplateResponse sets it
// only then), which the simulator takes to be the default, as for
// listVirtualMachines.
func cmdListTemplates(s *Simulator, _ *caller, p params) (map[string]any, *apiError) {
	filter, err := p.require("templatefilter")
	if err != nil {
		return nil, err
	}
	if !slices.Contains(templateFilters, filter) {
		return nil, invalidParam("Invalid template filter %s, valid values are: %s", filter, strings.Join(templateFilters, ", "))
	}
	if _, err := resolveParam(p, "id", s.st.Template); err != nil {
		return nil, err
	}
	forCks, forCksGiven := p.boolean("forcks")
	details := p.list("details")
	withDetails := len(details) == 0 || slices.ContainsFunc(details, func(d string) bool { return strings.EqualFold(d, "all") })
	var matched []*model.Template
	for _, t := range s.st.Templates {
		switch {
		case p.has("id") && !strings.EqualFold(p.str("id"), t.ID),
			p.has("name") && !strings.EqualFold(p.str("name"), t.Name),
			forCksGiven && forCks != t.ForCKS,
			!matchesKeyword(p, t.Name):
			continue
		}
		matched = append(matched, t)
	}
	return listBodyOf(s, p, "template", matched, func(t *model.Template) map[string]any {
		out := map[string]any{"id": t.ID, "name": t.Name, "displaytext": t.DisplayText, "isready": true,
			"ispublic": true, "isfeatured": true, "format": "QCOW2", "hypervisor": "KVM", "templatetype": "USER",
			"zoneid": s.st.SeedIDs.Zone, "created": csTime(t.Created), "ostypeid": s.st.SeedIDs.GuestOS}
		if t.ID == s.st.SeedIDs.SystemVMTemplate {
			out["templatetype"] = "SYSTEM"
		}
		if withDetails {
			out["forcks"] = t.ForCKS
		}
		return out
	})
}
