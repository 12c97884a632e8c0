package network

import (
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

func cmdListNetworks(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	filter, err := core.NewListFilter(s.Runtime, c, p, s.DB.Network)
	if err != nil {
		return nil, err
	}
	vp, err := wire.ResolveParam(p, "vpcid", s.DB.VPC)
	if err != nil {
		return nil, err
	}
	forVPC, forVPCGiven := p.Bool("forvpc")
	items := []map[string]any{}
	for _, n := range s.DB.Networks {
		switch {
		case n.Removed,
			s.networkHidden(filter, n),
			vp != nil && n.VPCID != vp.ID,
			forVPCGiven && forVPC != (n.VPCID != ""),
			p.Has("type") && !strings.EqualFold(p.Str("type"), n.NetType),
			p.Has("zoneid") && !strings.EqualFold(p.Str("zoneid"), n.ZoneID),
			// keyword is a LIKE on the name only
			// (NetworkServiceImpl.createNetworkSearchCriteria).
			!wire.MatchesKeyword(p, n.Name):
			continue
		}
		items = append(items, s.renderNetwork(n))
	}
	// NetworkServiceImpl.searchForNetworks: new Filter(NetworkVO.class,
	// "id", false, ...), newest first.
	slices.Reverse(items)
	return s.ListBody(p, "network", items)
}

func (s *Networks) renderNetwork(n *model.Network) map[string]any {
	out := map[string]any{
		"id":                  n.ID,
		"name":                n.Name,
		"displaytext":         n.DisplayText,
		"broadcastdomaintype": "Vlan",
		"traffictype":         "Guest",
		"gateway":             n.Gateway,
		"netmask":             "255.255.255.0",
		"cidr":                n.CIDR,
		"zoneid":              n.ZoneID,
		"networkofferingid":   n.OfferingID,
		"issystem":            false,
		"state":               n.State,
		"related":             n.ID,
		"dns1":                "8.8.8.8",
		"type":                n.NetType,
		"acltype":             "Account",
		"restartrequired":     false,
		"specifyipranges":     false,
		"canusefordeploy":     true,
		"ispersistent":        false,
		"redundantrouter":     false,
		"hasannotations":      false,
		"tags":                []any{},
		"created":             wire.CSTime(n.Created),
		"physicalnetworkid":   s.DB.PhysNetID,
	}
	if z := s.DB.Zone(n.ZoneID); z != nil {
		out["zonename"] = z.Name
	}
	if off := s.DB.NetOffering(n.OfferingID); off != nil {
		out["networkofferingname"] = off.Name
		out["networkofferingdisplaytext"] = off.DisplayText
		out["networkofferingconservemode"] = off.ConserveMode
		out["networkofferingavailability"] = "Optional"
	}
	if n.VPCID != "" {
		s.VPCFields(out, n.VPCID)
		if acl := s.DB.ACL(n.ACLID); acl != nil {
			out["aclid"] = acl.ID
			out["aclname"] = acl.Name
		}
	}
	if n.NetType == NetTypeShared {
		s.sharedNetworkFields(out)
		return out
	}
	s.OwnerFields(out, n.AccountID)
	return out
}

// networkHidden: a Shared network is domain-wide (acltype Domain), listed to
// every account of the ROOT domain; others go by their owner.
func (s *Networks) networkHidden(filter core.ListFilter[model.Network], n *model.Network) bool {
	if n.NetType == NetTypeShared {
		return filter.ByID() != nil && filter.ByID() != n
	}
	return filter.Excludes(n, n.AccountID)
}

func (s *Networks) sharedNetworkFields(out map[string]any) {
	out["acltype"] = "Domain"
	out["specifyipranges"] = true
	if d := s.DB.Domain(s.DB.SeedIDs.RootDomain); d != nil {
		out["domainid"], out["domain"], out["domainpath"] = d.ID, d.Name, d.Path
	}
}

func cmdListPublicIPAddresses(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	filter, err := core.NewListFilter(s.Runtime, c, p, s.DB.IP)
	if err != nil {
		return nil, err
	}
	assoc, err := wire.ResolveParam(p, "associatednetworkid", s.DB.Network)
	if err != nil {
		return nil, err
	}
	vp, err := wire.ResolveParam(p, "vpcid", s.DB.VPC)
	if err != nil {
		return nil, err
	}
	sourceNat, sourceNatGiven := p.Bool("issourcenat")
	staticNat, staticNatGiven := p.Bool("isstaticnat")
	items := []map[string]any{}
	// ManagementServerImpl.searchForIPAddresses: new
	// Filter(IPAddressVO.class, "address", false, ...), the address column
	// (a string) descending.
	ips := slices.Clone(s.DB.IPs)
	slices.SortStableFunc(ips, func(a, b *model.PublicIP) int { return strings.Compare(b.Address, a.Address) })
	for _, ip := range ips {
		switch {
		case ip.Released,
			filter.Excludes(ip, ip.AccountID),
			assoc != nil && ip.NetworkID != assoc.ID,
			p.Has("networkid") && !strings.EqualFold(p.Str("networkid"), ip.NetworkID) && !strings.EqualFold(p.Str("networkid"), s.DB.PublicNet),
			vp != nil && ip.VPCID != vp.ID,
			p.Has("ipaddress") && p.Str("ipaddress") != ip.Address,
			sourceNatGiven && sourceNat != ip.SourceNat,
			staticNatGiven && staticNat,
			p.Has("state") && !strings.EqualFold(p.Str("state"), ip.State),
			p.Has("zoneid") && !strings.EqualFold(p.Str("zoneid"), ip.ZoneID),
			!wire.MatchesKeyword(p, ip.Address):
			continue
		}
		items = append(items, s.renderPublicIP(ip))
	}
	return s.ListBody(p, "publicipaddress", items)
}

func (s *Networks) renderPublicIP(ip *model.PublicIP) map[string]any {
	out := map[string]any{
		"id":                ip.ID,
		"ipaddress":         ip.Address,
		"allocated":         wire.CSTime(ip.Allocated),
		"zoneid":            ip.ZoneID,
		"issourcenat":       ip.SourceNat,
		"isstaticnat":       false,
		"issystem":          false,
		"isportable":        false,
		"forvirtualnetwork": true,
		"fordisplay":        true,
		"forsystemvms":      false,
		"hasannotations":    false,
		"state":             ip.State,
		"networkid":         s.DB.PublicNet,
		"physicalnetworkid": s.DB.PhysNetID,
		"vlanname":          "untagged",
		"tags":              []any{},
		"hasrules":          len(s.RulesOnIP(ip.ID, "")) > 0,
	}
	if z := s.DB.Zone(ip.ZoneID); z != nil {
		out["zonename"] = z.Name
	}
	if ip.NetworkID != "" {
		out["associatednetworkid"] = ip.NetworkID
		if n := s.DB.Network(ip.NetworkID); n != nil {
			out["associatednetworkname"] = n.Name
		}
	}
	s.VPCFields(out, ip.VPCID)
	s.OwnerFields(out, ip.AccountID)
	return out
}

// VPCFields adds the VPC of a network, a public IP or a NIC, when it has one.
func (s *Networks) VPCFields(out map[string]any, vpcID string) {
	if vpcID == "" {
		return
	}
	out["vpcid"] = vpcID
	if vp := s.DB.VPC(vpcID); vp != nil {
		out["vpcname"] = vp.Name
	}
}
