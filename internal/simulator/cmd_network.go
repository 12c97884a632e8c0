package simulator

import (
	"slices"
	"strings"
)

func cmdListNetworks(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	filter, err := newListFilter(s, c, p, s.st.network)
	if err != nil {
		return nil, err
	}
	vp, err := resolveParam(p, "vpcid", s.st.vpc)
	if err != nil {
		return nil, err
	}
	forVPC, forVPCGiven := p.boolean("forvpc")
	items := []map[string]any{}
	for _, n := range s.st.networks {
		switch {
		case n.removed,
			s.networkHidden(filter, n),
			vp != nil && n.vpcID != vp.id,
			forVPCGiven && forVPC != (n.vpcID != ""),
			p.has("type") && !strings.EqualFold(p.str("type"), n.netType),
			p.has("zoneid") && !strings.EqualFold(p.str("zoneid"), n.zoneID),
			// keyword is a LIKE on the name only
			// (NetworkServiceImpl.createNetworkSearchCriteria).
			!matchesKeyword(p, n.name):
			continue
		}
		items = append(items, s.renderNetwork(n))
	}
	// NetworkServiceImpl.searchForNetworks: new Filter(NetworkVO.class,
	// "id", false, ...), newest first.
	slices.Reverse(items)
	return s.listBody(p, "network", items)
}

func (s *Simulator) renderNetwork(n *network) map[string]any {
	out := map[string]any{
		"id":                  n.id,
		"name":                n.name,
		"displaytext":         n.displayText,
		"broadcastdomaintype": "Vlan",
		"traffictype":         "Guest",
		"gateway":             n.gateway,
		"netmask":             "255.255.255.0",
		"cidr":                n.cidr,
		"zoneid":              n.zoneID,
		"networkofferingid":   n.offeringID,
		"issystem":            false,
		"state":               n.state,
		"related":             n.id,
		"dns1":                "8.8.8.8",
		"type":                n.netType,
		"acltype":             "Account",
		"restartrequired":     false,
		"specifyipranges":     false,
		"canusefordeploy":     true,
		"ispersistent":        false,
		"redundantrouter":     false,
		"hasannotations":      false,
		"tags":                []any{},
		"created":             csTime(n.created),
		"physicalnetworkid":   s.st.physNetID,
	}
	if z := s.st.zone(n.zoneID); z != nil {
		out["zonename"] = z.name
	}
	if off := s.st.netOffering(n.offeringID); off != nil {
		out["networkofferingname"] = off.name
		out["networkofferingdisplaytext"] = off.displayText
		out["networkofferingconservemode"] = off.conserveMode
		out["networkofferingavailability"] = "Optional"
	}
	if n.vpcID != "" {
		s.vpcFields(out, n.vpcID)
		if acl := s.st.acl(n.aclID); acl != nil {
			out["aclid"] = acl.id
			out["aclname"] = acl.name
		}
	}
	if n.netType == netTypeShared {
		s.sharedNetworkFields(out)
		return out
	}
	s.ownerFields(out, n.accountID)
	return out
}

// networkHidden: a Shared network is domain-wide (acltype Domain), listed to
// every account of the ROOT domain; others go by their owner.
func (s *Simulator) networkHidden(filter listFilter[network], n *network) bool {
	if n.netType == netTypeShared {
		return filter.byID != nil && filter.byID != n
	}
	return filter.excludes(n, n.accountID)
}

func (s *Simulator) sharedNetworkFields(out map[string]any) {
	out["acltype"] = "Domain"
	out["specifyipranges"] = true
	if d := s.st.domain(s.st.seedIDs.rootDomain); d != nil {
		out["domainid"], out["domain"], out["domainpath"] = d.id, d.name, d.path
	}
}

func cmdListPublicIPAddresses(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	filter, err := newListFilter(s, c, p, s.st.ip)
	if err != nil {
		return nil, err
	}
	assoc, err := resolveParam(p, "associatednetworkid", s.st.network)
	if err != nil {
		return nil, err
	}
	vp, err := resolveParam(p, "vpcid", s.st.vpc)
	if err != nil {
		return nil, err
	}
	sourceNat, sourceNatGiven := p.boolean("issourcenat")
	staticNat, staticNatGiven := p.boolean("isstaticnat")
	items := []map[string]any{}
	// ManagementServerImpl.searchForIPAddresses: new
	// Filter(IPAddressVO.class, "address", false, ...), the address column
	// (a string) descending.
	ips := slices.Clone(s.st.ips)
	slices.SortStableFunc(ips, func(a, b *publicIP) int { return strings.Compare(b.address, a.address) })
	for _, ip := range ips {
		switch {
		case ip.released,
			filter.excludes(ip, ip.accountID),
			assoc != nil && ip.networkID != assoc.id,
			p.has("networkid") && !strings.EqualFold(p.str("networkid"), ip.networkID) && !strings.EqualFold(p.str("networkid"), s.st.publicNet),
			vp != nil && ip.vpcID != vp.id,
			p.has("ipaddress") && p.str("ipaddress") != ip.address,
			sourceNatGiven && sourceNat != ip.sourceNat,
			staticNatGiven && staticNat,
			p.has("state") && !strings.EqualFold(p.str("state"), ip.state),
			p.has("zoneid") && !strings.EqualFold(p.str("zoneid"), ip.zoneID),
			!matchesKeyword(p, ip.address):
			continue
		}
		items = append(items, s.renderPublicIP(ip))
	}
	return s.listBody(p, "publicipaddress", items)
}

func (s *Simulator) renderPublicIP(ip *publicIP) map[string]any {
	out := map[string]any{
		"id":                ip.id,
		"ipaddress":         ip.address,
		"allocated":         csTime(ip.allocated),
		"zoneid":            ip.zoneID,
		"issourcenat":       ip.sourceNat,
		"isstaticnat":       false,
		"issystem":          false,
		"isportable":        false,
		"forvirtualnetwork": true,
		"fordisplay":        true,
		"forsystemvms":      false,
		"hasannotations":    false,
		"state":             ip.state,
		"networkid":         s.st.publicNet,
		"physicalnetworkid": s.st.physNetID,
		"vlanname":          "untagged",
		"tags":              []any{},
		"hasrules":          len(s.rulesOnIP(ip.id, "")) > 0,
	}
	if z := s.st.zone(ip.zoneID); z != nil {
		out["zonename"] = z.name
	}
	if ip.networkID != "" {
		out["associatednetworkid"] = ip.networkID
		if n := s.st.network(ip.networkID); n != nil {
			out["associatednetworkname"] = n.name
		}
	}
	s.vpcFields(out, ip.vpcID)
	s.ownerFields(out, ip.accountID)
	return out
}

// vpcFields adds the VPC of a network, a public IP or a NIC, when it has one.
func (s *Simulator) vpcFields(out map[string]any, vpcID string) {
	if vpcID == "" {
		return
	}
	out["vpcid"] = vpcID
	if vp := s.st.vpc(vpcID); vp != nil {
		out["vpcname"] = vp.name
	}
}
