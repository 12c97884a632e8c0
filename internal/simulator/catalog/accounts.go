package catalog

import (
	"strconv"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// Read-only catalogue commands: zones, offerings, key pairs, projects,
// domains, accounts and capabilities.

func cmdListZones(s *Catalog, _ *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	byID, err := wire.ResolveParam(p, "id", s.DB.Zone)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, z := range s.DB.Zones {
		if (byID != nil && z != byID) || (p.Has("name") && !strings.EqualFold(p.Str("name"), z.Name)) || !wire.MatchesKeyword(p, z.Name) {
			continue
		}
		items = append(items, map[string]any{
			"id":                    z.ID,
			"name":                  z.Name,
			"description":           "CKS simulator zone",
			"networktype":           "Advanced",
			"securitygroupsenabled": false,
			"allocationstate":       "Enabled",
			"zonetoken":             z.ID[:8],
			"dhcpprovider":          "VirtualRouter",
			"localstorageenabled":   false,
			"dns1":                  "8.8.8.8",
			"internaldns1":          "10.0.0.2",
			"guestcidraddress":      "10.1.0.0/16",
			"type":                  "Core",
			"tags":                  []any{},
			"hasannotations":        false,
			"isnsxenabled":          false,
			"isedge":                false,
		})
	}
	return s.ListBody(p, "zone", items)
}

func cmdListServiceOfferings(s *Catalog, _ *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	byID, err := wire.ResolveParam(p, "id", s.DB.Offering)
	if err != nil {
		return nil, err
	}
	if _, err := wire.ResolveParam(p, "zoneid", s.DB.Zone); err != nil {
		return nil, err
	}
	if sys, _ := p.Bool("issystem"); sys {
		return map[string]any{}, nil
	}
	items := []map[string]any{}
	for _, o := range s.DB.Offerings {
		if (byID != nil && o != byID) || (p.Has("name") && !strings.EqualFold(p.Str("name"), o.Name)) || !wire.MatchesKeyword(p, o.Name, o.DisplayText) {
			continue
		}
		items = append(items, map[string]any{
			"id":                     o.ID,
			"name":                   o.Name,
			"displaytext":            o.DisplayText,
			"cpunumber":              o.CPU,
			"cpuspeed":               o.CPUSpeed,
			"memory":                 o.Memory,
			"created":                wire.CSTime(o.Created),
			"storagetype":            "shared",
			"provisioningtype":       "thin",
			"offerha":                false,
			"limitcpuuse":            false,
			"isvolatile":             false,
			"issystem":               false,
			"defaultuse":             false,
			"iscustomized":           false,
			"dynamicscalingenabled":  true,
			"diskofferingstrictness": false,
			"encryptroot":            false,
			"hasannotations":         false,
			"cacheMode":              "none",
			"rootdisksize":           0,
			"state":                  "Active",
		})
	}
	return s.ListBody(p, "serviceoffering", items)
}

func cmdListSSHKeyPairs(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	scope, err := s.ListScope(c, p)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, k := range s.DB.Keypairs {
		switch {
		case !scope(k.AccountID),
			p.Has("id") && !strings.EqualFold(p.Str("id"), k.ID),
			p.Has("name") && p.Str("name") != k.Name,
			p.Has("fingerprint") && p.Str("fingerprint") != k.Fingerprint,
			!wire.MatchesKeyword(p, k.Name):
			continue
		}
		out := map[string]any{"id": k.ID, "name": k.Name, "fingerprint": k.Fingerprint, "hasannotations": false}
		s.OwnerFields(out, k.AccountID)
		items = append(items, out)
	}
	return s.ListBody(p, "sshkeypair", items)
}

func cmdListProjects(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	byID, err := wire.ResolveParam(p, "id", s.DB.Project)
	if err != nil {
		return nil, err
	}
	listAll, _ := p.Bool("listall")
	items := []map[string]any{}
	for _, prj := range s.DB.Projects {
		switch {
		case byID != nil && prj != byID,
			(!c.IsAdmin() || (!listAll && byID == nil)) && prj.OwnerAccountID != c.Account.ID,
			p.Has("name") && !strings.EqualFold(p.Str("name"), prj.Name),
			p.Has("state") && !strings.EqualFold(p.Str("state"), "Active"),
			!wire.MatchesKeyword(p, prj.Name, prj.DisplayText):
			continue
		}
		out := map[string]any{
			"id":           prj.ID,
			"name":         prj.Name,
			"displaytext":  prj.DisplayText,
			"domainid":     prj.DomainID,
			"state":        "Active",
			"created":      wire.CSTime(prj.Created),
			"tags":         []any{},
			"vmtotal":      s.countVMs(prj.AccountID),
			"vmlimit":      "Unlimited",
			"vmavailable":  "Unlimited",
			"networktotal": 0,
			"cputotal":     0,
			"memorytotal":  0,
		}
		if a := s.DB.Account(prj.AccountID); a != nil {
			out["projectaccountname"] = a.Name
		}
		if d := s.DB.Domain(prj.DomainID); d != nil {
			out["domain"] = d.Name
		}
		if owner := s.DB.Account(prj.OwnerAccountID); owner != nil {
			out["owner"] = []map[string]any{{"account": owner.Name}}
		}
		items = append(items, out)
	}
	return s.ListBody(p, "project", items)
}

func (s *Catalog) countVMs(accountID string) int {
	n := 0
	for _, v := range s.DB.VMs {
		if !v.Expunged && v.AccountID == accountID {
			n++
		}
	}
	return n
}

func cmdListDomains(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	byID, err := wire.ResolveParam(p, "id", s.DB.Domain)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, d := range s.DB.Domains {
		switch {
		case byID != nil && d != byID,
			!c.IsAdmin() && d.ID != c.Account.DomainID,
			p.Has("name") && !strings.EqualFold(p.Str("name"), d.Name),
			p.Has("level") && p.Str("level") != "0",
			!wire.MatchesKeyword(p, d.Name):
			continue
		}
		items = append(items, map[string]any{
			"id":             d.ID,
			"name":           d.Name,
			"level":          d.Level,
			"haschild":       false,
			"path":           d.Path,
			"state":          "Active",
			"created":        wire.CSTime(d.Created),
			"hasannotations": false,
			"vmlimit":        "Unlimited",
			"vmtotal":        0,
			"vmavailable":    "Unlimited",
		})
	}
	return s.ListBody(p, "domain", items)
}

func cmdListAccounts(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	byID, err := wire.ResolveParam(p, "id", s.DB.Account)
	if err != nil {
		return nil, err
	}
	listAll, _ := p.Bool("listall")
	items := []map[string]any{}
	for _, a := range s.DB.Accounts {
		switch {
		case a.AccountType == model.AccountTypeProject,
			byID != nil && a != byID,
			(!c.IsAdmin() || (!listAll && byID == nil && !p.Has("name"))) && a.ID != c.Account.ID,
			p.Has("name") && !strings.EqualFold(p.Str("name"), a.Name),
			p.Has("accounttype") && p.Str("accounttype") != strconv.Itoa(a.AccountType),
			p.Has("domainid") && !strings.EqualFold(p.Str("domainid"), a.DomainID),
			!wire.MatchesKeyword(p, a.Name):
			continue
		}
		out := map[string]any{
			"id":             a.ID,
			"name":           a.Name,
			"accounttype":    a.AccountType,
			"roletype":       a.RoleType,
			"rolename":       a.RoleType,
			"state":          "enabled",
			"isdefault":      a.IsDefault,
			"created":        wire.CSTime(a.Created),
			"hasannotations": false,
			"vmtotal":        s.countVMs(a.ID),
			"vmlimit":        "Unlimited",
			"vmavailable":    "Unlimited",
		}
		if d := s.DB.Domain(a.DomainID); d != nil {
			out["domainid"], out["domain"], out["domainpath"] = d.ID, d.Name, d.Path
		}
		var users []map[string]any
		for _, u := range s.DB.Users {
			if u.AccountID == a.ID {
				users = append(users, map[string]any{"id": u.ID, "username": u.Username, "account": a.Name,
					"accountid": a.ID, "accounttype": a.AccountType, "state": "enabled", "created": wire.CSTime(u.Created)})
			}
		}
		if users != nil {
			out["user"] = users
		}
		items = append(items, out)
	}
	return s.ListBody(p, "account", items)
}

func cmdListCapabilities(s *Catalog, _ *core.Caller, _ wire.Params) (map[string]any, *wire.APIError) {
	return map[string]any{"capability": map[string]any{
		"cloudstackversion":                            s.Profile.CloudStackVersion,
		"kubernetesserviceenabled":                     true,
		"kubernetesclusterexperimentalfeaturesenabled": false,
		"securitygroupsenabled":                        false,
		"userpublictemplateenabled":                    true,
		"allowusercreateprojects":                      true,
		"projectinviterequired":                        false,
		"customdiskofferingminsize":                    1,
		"customdiskofferingmaxsize":                    1024,
		"apilimitinterval":                             1,
		"apilimitmax":                                  25,
		"allowuserviewdestroyedvm":                     false,
		"allowuserexpungerecovervm":                    false,
		"allowuserexpungerecovervolume":                true,
		"allowuserviewalldomainaccounts":               false,
		"dynamicrolesenabled":                          true,
		"kvmsnapshotenabled":                           false,
		"regionsecondaryenabled":                       false,
		"defaultuipagesize":                            20,
		"supportELB":                                   "false",
		"instancesstatsretentiontime":                  720,
		"instancesstatsuseronly":                       false,
		"instancesdisksstatsretentionenabled":          false,
		"instancesdisksstatsretentiontime":             720,
		"sharedfsvmmincpucount":                        2,
		"sharedfsvmminramsize":                         512,
		"instanceleaseenabled":                         false,
		"dynamicscalingenabled":                        true,
	}}, nil
}
