package cluster

import (
	"fmt"
	"strconv"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// renderVM is the UserVmResponse; full is the root admin view (instance
// name and hypervisor host).
func (s *Workers) renderVM(v *model.VM, full bool) map[string]any {
	out := map[string]any{
		"id":                    v.ID,
		"name":                  v.Name,
		"displayname":           v.Name,
		"created":               wire.CSTime(v.Created),
		"lastupdated":           wire.CSTime(v.LastUpdated),
		"state":                 v.State,
		"haenable":              false,
		"zoneid":                v.ZoneID,
		"templateid":            v.TemplateID,
		"serviceofferingid":     v.OfferingID,
		"guestosid":             s.DB.SeedIDs.GuestOS,
		"ostypeid":              s.DB.SeedIDs.GuestOS,
		"osdisplayname":         "Debian GNU/Linux 12 (64-bit)",
		"hypervisor":            "KVM",
		"arch":                  "x86_64",
		"securitygroup":         []any{},
		"affinitygroup":         []any{},
		"tags":                  s.renderTags(v),
		"details":               map[string]string{"rootdisksize": strconv.FormatInt(v.RootDiskSize, 10)},
		"displayvm":             true,
		"isdynamicallyscalable": false,
		"deleteprotection":      false,
		"passwordenabled":       false,
		"pooltype":              "NetworkFilesystem",
		"receivedbytes":         0,
		"sentbytes":             0,
		"hasannotations":        false,
		"ipaddress":             v.IP,
		"rootdeviceid":          0,
		"rootdevicetype":        "ROOT",
		"nic":                   []map[string]any{s.renderNIC(v)},
	}
	out["vmtype"] = "cksnode"
	if v.UserVM {
		out["vmtype"] = "User"
	}
	if v.Keypair != "" {
		out["keypairs"] = v.Keypair
	}
	if z := s.DB.Zone(v.ZoneID); z != nil {
		out["zonename"] = z.Name
	}
	if t := s.DB.Template(v.TemplateID); t != nil {
		out["templatename"] = t.Name
		out["templatedisplaytext"] = t.DisplayText
		out["templatetype"] = "SYSTEM"
		out["templateformat"] = "QCOW2"
	}
	if o := s.DB.Offering(v.OfferingID); o != nil {
		out["serviceofferingname"] = o.Name
		out["cpunumber"] = o.CPU
		out["cpuspeed"] = o.CPUSpeed
		out["memory"] = o.Memory
	}
	if u := s.DB.UserOfAccount(v.AccountID); u != nil {
		out["userid"] = u.ID
		out["username"] = u.Username
	}
	s.OwnerFields(out, v.AccountID)
	if full {
		out["instancename"] = s.instanceName(v)
		if v.State == model.VMRunning {
			out["hostid"] = v.HostID
			out["hostname"] = v.HostName
		}
	}
	return out
}

func (s *Workers) renderNIC(v *model.VM) map[string]any {
	nic := map[string]any{
		"id":               v.NICID,
		"networkid":        v.NetworkID,
		"netmask":          "255.255.255.0",
		"ipaddress":        v.IP,
		"traffictype":      "Guest",
		"type":             "Isolated",
		"isdefault":        true,
		"macaddress":       v.MAC,
		"secondaryip":      []any{},
		"extradhcpoption":  []any{},
		"deviceid":         "0",
		"virtualmachineid": v.ID,
	}
	if n := s.DB.Network(v.NetworkID); n != nil {
		nic["networkname"] = n.Name
		nic["gateway"] = n.Gateway
		vlan := fmt.Sprintf("vlan://%d", 2000+n.InternalID)
		nic["isolationuri"] = vlan
		nic["broadcasturi"] = vlan
		s.VPCFields(nic, n.VPCID)
	}
	return nic
}
