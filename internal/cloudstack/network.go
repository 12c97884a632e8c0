package cloudstack

import (
	"context"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"
)

// ListVirtualMachines lists VMs, all pages.
func (c *Client) ListVirtualMachines(ctx context.Context, p ListVMsParams) ([]VirtualMachine, error) {
	const command = "listVirtualMachines"
	return collectPages(ctx, command, c.pageSize, func(vm VirtualMachine) string { return vm.ID },
		func(ctx context.Context, page, pageSize int) ([]VirtualMachine, int, error) {
			r, _, err := call(ctx, c, command, callOpts{read: true},
				func(cs *csgo.CloudStackClient) (*csgo.ListVirtualMachinesResponse, error) {
					lp := cs.VirtualMachine.NewListVirtualMachinesParams()
					setOwnership(lp, p.Ownership)
					if p.ZoneID != "" {
						lp.SetZoneid(p.ZoneID)
					}
					if p.NetworkID != "" {
						lp.SetNetworkid(p.NetworkID)
					}
					if p.Keyword != "" {
						lp.SetKeyword(p.Keyword)
					}
					if len(p.IDs) > 0 {
						lp.SetIds(p.IDs)
					}
					if p.ListAll {
						lp.SetListall(true)
					}
					lp.SetPage(page)
					lp.SetPagesize(pageSize)
					return cs.VirtualMachine.ListVirtualMachines(lp)
				})
			if err != nil {
				return nil, 0, err
			}
			out := make([]VirtualMachine, 0, len(r.VirtualMachines))
			for _, vm := range r.VirtualMachines {
				out = append(out, toVirtualMachine(vm))
			}
			return out, r.Count, nil
		})
}

func toVirtualMachine(vm *csgo.VirtualMachine) VirtualMachine {
	out := VirtualMachine{
		ID:          vm.Id,
		Name:        vm.Name,
		DisplayName: vm.Displayname,
		State:       vm.State,
		Created:     vm.Created,
		VMType:      vm.Vmtype,
		Account:     vm.Account,
		DomainID:    vm.Domainid,
		ProjectID:   vm.Projectid,
		ZoneID:      vm.Zoneid,
		IPAddress:   vm.Ipaddress,

		TemplateID:        vm.Templateid,
		TemplateName:      vm.Templatename,
		ServiceOfferingID: vm.Serviceofferingid,
	}
	nics := make([]rawNic, 0, len(vm.Nic))
	for _, n := range vm.Nic {
		nics = append(nics, rawNic{IPAddress: n.Ipaddress, NetworkID: n.Networkid, IsDefault: flexBool(n.Isdefault)})
		if n.Networkid != "" {
			out.NetworkIDs = append(out.NetworkIDs, n.Networkid)
		}
		if n.Isdefault && out.DefaultNetworkID == "" {
			out.DefaultNetworkID = n.Networkid
		}
	}
	for _, t := range vm.Tags {
		if out.Tags == nil {
			out.Tags = map[string]string{}
		}
		out.Tags[t.Key] = t.Value
	}
	if out.IPAddress == "" {
		out.IPAddress = primaryNicIP(nics)
	}
	return out
}

// ListPublicIPAddresses lists public IPs, all pages.
func (c *Client) ListPublicIPAddresses(ctx context.Context, p ListPublicIPParams) ([]PublicIPAddress, error) {
	const command = "listPublicIpAddresses"
	return collectPages(ctx, command, c.pageSize, func(ip PublicIPAddress) string { return ip.ID },
		func(ctx context.Context, page, pageSize int) ([]PublicIPAddress, int, error) {
			r, _, err := call(ctx, c, command, callOpts{read: true},
				func(cs *csgo.CloudStackClient) (*csgo.ListPublicIpAddressesResponse, error) {
					lp := publicIPListParams(cs, p)
					lp.SetPage(page)
					lp.SetPagesize(pageSize)
					return cs.Address.ListPublicIpAddresses(lp)
				})
			if err != nil {
				return nil, 0, err
			}
			out := make([]PublicIPAddress, 0, len(r.PublicIpAddresses))
			for _, ip := range r.PublicIpAddresses {
				out = append(out, PublicIPAddress{
					ID:                  ip.Id,
					IPAddress:           ip.Ipaddress,
					IsSourceNat:         ip.Issourcenat,
					AssociatedNetworkID: ip.Associatednetworkid,
					VPCID:               ip.Vpcid,
					ZoneID:              ip.Zoneid,
					State:               ip.State,
				})
			}
			return out, r.Count, nil
		})
}

// ListNetworks lists guest networks, all pages. listall is always sent so
// that an admin finds networks of other accounts; a project's networks need
// p.ProjectID.
func (c *Client) ListNetworks(ctx context.Context, p ListNetworksParams) ([]Network, error) {
	const command = "listNetworks"
	return collectPages(ctx, command, c.pageSize, func(n Network) string { return n.ID },
		func(ctx context.Context, page, pageSize int) ([]Network, int, error) {
			r, _, err := call(ctx, c, command, callOpts{read: true},
				func(cs *csgo.CloudStackClient) (*csgo.ListNetworksResponse, error) {
					lp := cs.Network.NewListNetworksParams()
					if p.ID != "" {
						lp.SetId(p.ID)
					}
					if p.ProjectID != "" {
						lp.SetProjectid(p.ProjectID)
					}
					if p.Keyword != "" {
						lp.SetKeyword(p.Keyword)
					}
					if p.ZoneID != "" {
						lp.SetZoneid(p.ZoneID)
					}
					if p.VPCID != "" {
						lp.SetVpcid(p.VPCID)
					}
					lp.SetListall(true)
					lp.SetPage(page)
					lp.SetPagesize(pageSize)
					return cs.Network.ListNetworks(lp)
				})
			if err != nil {
				return nil, 0, err
			}
			out := make([]Network, 0, len(r.Networks))
			for _, n := range r.Networks {
				out = append(out, Network{
					ID:           n.Id,
					Name:         n.Name,
					Type:         n.Type,
					State:        n.State,
					VPCID:        n.Vpcid,
					ZoneID:       n.Zoneid,
					ACLID:        n.Aclid,
					ConserveMode: n.Networkofferingconservemode,
				})
			}
			return out, r.Count, nil
		})
}

// publicIPListParams sets the filters of p that are not zero.
func publicIPListParams(cs *csgo.CloudStackClient, p ListPublicIPParams) *csgo.ListPublicIpAddressesParams {
	lp := cs.Address.NewListPublicIpAddressesParams()
	setNonEmpty(stringSetting{p.ID, lp.SetId}, stringSetting{p.IPAddress, lp.SetIpaddress},
		stringSetting{p.AssociatedNetworkID, lp.SetAssociatednetworkid}, stringSetting{p.VPCID, lp.SetVpcid},
		stringSetting{p.ProjectID, lp.SetProjectid})
	if p.IsSourceNat != nil {
		lp.SetIssourcenat(*p.IsSourceNat)
	}
	if p.ListAll {
		lp.SetListall(true)
	}
	return lp
}
