package simulator

import (
	"fmt"
	"strconv"
)

// renderVM is the UserVmResponse; full is the root admin view (instance
// name and hypervisor host).
func (s *Simulator) renderVM(v *vm, full bool) map[string]any {
	out := map[string]any{
		"id":                    v.id,
		"name":                  v.name,
		"displayname":           v.name,
		"created":               csTime(v.created),
		"lastupdated":           csTime(v.lastUpdated),
		"state":                 v.state,
		"haenable":              false,
		"zoneid":                v.zoneID,
		"templateid":            v.templateID,
		"serviceofferingid":     v.offeringID,
		"guestosid":             s.st.seedIDs.guestOS,
		"ostypeid":              s.st.seedIDs.guestOS,
		"osdisplayname":         "Debian GNU/Linux 12 (64-bit)",
		"hypervisor":            "KVM",
		"arch":                  "x86_64",
		"securitygroup":         []any{},
		"affinitygroup":         []any{},
		"tags":                  s.renderTags(v),
		"details":               map[string]string{"rootdisksize": strconv.FormatInt(v.rootDiskSize, 10)},
		"displayvm":             true,
		"isdynamicallyscalable": false,
		"deleteprotection":      false,
		"passwordenabled":       false,
		"pooltype":              "NetworkFilesystem",
		"receivedbytes":         0,
		"sentbytes":             0,
		"hasannotations":        false,
		"ipaddress":             v.ip,
		"rootdeviceid":          0,
		"rootdevicetype":        "ROOT",
		"nic":                   []map[string]any{s.renderNIC(v)},
	}
	out["vmtype"] = "cksnode"
	if v.userVM {
		out["vmtype"] = "User"
	}
	if v.keypair != "" {
		out["keypairs"] = v.keypair
	}
	if z := s.st.zone(v.zoneID); z != nil {
		out["zonename"] = z.name
	}
	if t := s.st.template(v.templateID); t != nil {
		out["templatename"] = t.name
		out["templatedisplaytext"] = t.displayText
		out["templatetype"] = "SYSTEM"
		out["templateformat"] = "QCOW2"
	}
	if o := s.st.offering(v.offeringID); o != nil {
		out["serviceofferingname"] = o.name
		out["cpunumber"] = o.cpu
		out["cpuspeed"] = o.cpuSpeed
		out["memory"] = o.memory
	}
	if u := s.st.userOfAccount(v.accountID); u != nil {
		out["userid"] = u.id
		out["username"] = u.username
	}
	s.ownerFields(out, v.accountID)
	if full {
		out["instancename"] = s.instanceName(v)
		if v.state == vmRunning {
			out["hostid"] = v.hostID
			out["hostname"] = v.hostName
		}
	}
	return out
}

func (s *Simulator) renderNIC(v *vm) map[string]any {
	nic := map[string]any{
		"id":               v.nicID,
		"networkid":        v.networkID,
		"netmask":          "255.255.255.0",
		"ipaddress":        v.ip,
		"traffictype":      "Guest",
		"type":             "Isolated",
		"isdefault":        true,
		"macaddress":       v.mac,
		"secondaryip":      []any{},
		"extradhcpoption":  []any{},
		"deviceid":         "0",
		"virtualmachineid": v.id,
	}
	if n := s.st.network(v.networkID); n != nil {
		nic["networkname"] = n.name
		nic["gateway"] = n.gateway
		vlan := fmt.Sprintf("vlan://%d", 2000+n.internalID)
		nic["isolationuri"] = vlan
		nic["broadcasturi"] = vlan
		s.vpcFields(nic, n.vpcID)
	}
	return nic
}
