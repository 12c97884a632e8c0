package simulator

import (
	"strconv"
	"strings"
)

// Read-only catalogue commands: zones, offerings, key pairs, projects,
// domains, accounts and capabilities.

func cmdListZones(s *Simulator, _ *caller, p params) (map[string]any, *apiError) {
	byID, err := resolveParam(p, "id", s.st.zone)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, z := range s.st.zones {
		if (byID != nil && z != byID) || (p.has("name") && !strings.EqualFold(p.str("name"), z.name)) || !matchesKeyword(p, z.name) {
			continue
		}
		items = append(items, map[string]any{
			"id":                    z.id,
			"name":                  z.name,
			"description":           "CKS simulator zone",
			"networktype":           "Advanced",
			"securitygroupsenabled": false,
			"allocationstate":       "Enabled",
			"zonetoken":             z.id[:8],
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
	return s.listBody(p, "zone", items)
}

func cmdListServiceOfferings(s *Simulator, _ *caller, p params) (map[string]any, *apiError) {
	byID, err := resolveParam(p, "id", s.st.offering)
	if err != nil {
		return nil, err
	}
	if _, err := resolveParam(p, "zoneid", s.st.zone); err != nil {
		return nil, err
	}
	if sys, _ := p.boolean("issystem"); sys {
		return map[string]any{}, nil
	}
	items := []map[string]any{}
	for _, o := range s.st.offerings {
		if (byID != nil && o != byID) || (p.has("name") && !strings.EqualFold(p.str("name"), o.name)) || !matchesKeyword(p, o.name, o.displayText) {
			continue
		}
		items = append(items, map[string]any{
			"id":                     o.id,
			"name":                   o.name,
			"displaytext":            o.displayText,
			"cpunumber":              o.cpu,
			"cpuspeed":               o.cpuSpeed,
			"memory":                 o.memory,
			"created":                csTime(o.created),
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
	return s.listBody(p, "serviceoffering", items)
}

func cmdListSSHKeyPairs(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	scope, err := s.listScope(c, p)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, k := range s.st.keypairs {
		switch {
		case !scope(k.accountID),
			p.has("id") && !strings.EqualFold(p.str("id"), k.id),
			p.has("name") && p.str("name") != k.name,
			p.has("fingerprint") && p.str("fingerprint") != k.fingerprint,
			!matchesKeyword(p, k.name):
			continue
		}
		out := map[string]any{"id": k.id, "name": k.name, "fingerprint": k.fingerprint, "hasannotations": false}
		s.ownerFields(out, k.accountID)
		items = append(items, out)
	}
	return s.listBody(p, "sshkeypair", items)
}

func cmdListProjects(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	byID, err := resolveParam(p, "id", s.st.project)
	if err != nil {
		return nil, err
	}
	listAll, _ := p.boolean("listall")
	items := []map[string]any{}
	for _, prj := range s.st.projects {
		switch {
		case byID != nil && prj != byID,
			(!c.isAdmin() || (!listAll && byID == nil)) && prj.ownerAccountID != c.account.id,
			p.has("name") && !strings.EqualFold(p.str("name"), prj.name),
			p.has("state") && !strings.EqualFold(p.str("state"), "Active"),
			!matchesKeyword(p, prj.name, prj.displayText):
			continue
		}
		out := map[string]any{
			"id":           prj.id,
			"name":         prj.name,
			"displaytext":  prj.displayText,
			"domainid":     prj.domainID,
			"state":        "Active",
			"created":      csTime(prj.created),
			"tags":         []any{},
			"vmtotal":      s.countVMs(prj.accountID),
			"vmlimit":      "Unlimited",
			"vmavailable":  "Unlimited",
			"networktotal": 0,
			"cputotal":     0,
			"memorytotal":  0,
		}
		if a := s.st.account(prj.accountID); a != nil {
			out["projectaccountname"] = a.name
		}
		if d := s.st.domain(prj.domainID); d != nil {
			out["domain"] = d.name
		}
		if owner := s.st.account(prj.ownerAccountID); owner != nil {
			out["owner"] = []map[string]any{{"account": owner.name}}
		}
		items = append(items, out)
	}
	return s.listBody(p, "project", items)
}

func (s *Simulator) countVMs(accountID string) int {
	n := 0
	for _, v := range s.st.vms {
		if !v.expunged && v.accountID == accountID {
			n++
		}
	}
	return n
}

func cmdListDomains(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	byID, err := resolveParam(p, "id", s.st.domain)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, d := range s.st.domains {
		switch {
		case byID != nil && d != byID,
			!c.isAdmin() && d.id != c.account.domainID,
			p.has("name") && !strings.EqualFold(p.str("name"), d.name),
			p.has("level") && p.str("level") != "0",
			!matchesKeyword(p, d.name):
			continue
		}
		items = append(items, map[string]any{
			"id":             d.id,
			"name":           d.name,
			"level":          d.level,
			"haschild":       false,
			"path":           d.path,
			"state":          "Active",
			"created":        csTime(d.created),
			"hasannotations": false,
			"vmlimit":        "Unlimited",
			"vmtotal":        0,
			"vmavailable":    "Unlimited",
		})
	}
	return s.listBody(p, "domain", items)
}

func cmdListAccounts(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	byID, err := resolveParam(p, "id", s.st.account)
	if err != nil {
		return nil, err
	}
	listAll, _ := p.boolean("listall")
	items := []map[string]any{}
	for _, a := range s.st.accounts {
		switch {
		case a.accountType == accountTypeProject,
			byID != nil && a != byID,
			(!c.isAdmin() || (!listAll && byID == nil && !p.has("name"))) && a.id != c.account.id,
			p.has("name") && !strings.EqualFold(p.str("name"), a.name),
			p.has("accounttype") && p.str("accounttype") != strconv.Itoa(a.accountType),
			p.has("domainid") && !strings.EqualFold(p.str("domainid"), a.domainID),
			!matchesKeyword(p, a.name):
			continue
		}
		out := map[string]any{
			"id":             a.id,
			"name":           a.name,
			"accounttype":    a.accountType,
			"roletype":       a.roleType,
			"rolename":       a.roleType,
			"state":          "enabled",
			"isdefault":      a.isDefault,
			"created":        csTime(a.created),
			"hasannotations": false,
			"vmtotal":        s.countVMs(a.id),
			"vmlimit":        "Unlimited",
			"vmavailable":    "Unlimited",
		}
		if d := s.st.domain(a.domainID); d != nil {
			out["domainid"], out["domain"], out["domainpath"] = d.id, d.name, d.path
		}
		var users []map[string]any
		for _, u := range s.st.users {
			if u.accountID == a.id {
				users = append(users, map[string]any{"id": u.id, "username": u.username, "account": a.name,
					"accountid": a.id, "accounttype": a.accountType, "state": "enabled", "created": csTime(u.created)})
			}
		}
		if users != nil {
			out["user"] = users
		}
		items = append(items, out)
	}
	return s.listBody(p, "account", items)
}

func cmdListCapabilities(s *Simulator, _ *caller, _ params) (map[string]any, *apiError) {
	return map[string]any{"capability": map[string]any{
		"cloudstackversion":                            s.profile.cloudStackVersion,
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
