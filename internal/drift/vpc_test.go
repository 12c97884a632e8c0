package drift

import (
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// vpcInput is cleanInput on a VPC tier whose list is the VPC's own: the
// node forwards and the API forward on the cluster's IP, and CKS's 6443 and
// 22 items at the top of the list, above an item of the user's.
func vpcInput() Input {
	in := cleanInput()
	fwd := func(id string, public, private int, vm string) rules.Rule {
		return rules.Rule{ID: id, Kind: rules.KindPortForward, Protocol: "tcp", StartPort: public, EndPort: public,
			PrivatePort: private, PrivateEndPort: private, VMID: vm, IPAddressID: "ip-vpc", NetworkID: "tier"}
	}
	item := func(id string, number int, protocol string, port int, cidrs ...string) rules.ACLItem {
		return rules.ACLItem{ID: id, Number: number, Protocol: protocol, StartPort: port, EndPort: port, CIDRs: cidrs,
			TrafficType: rules.ACLIngress, Action: rules.ACLAllow}
	}
	forwards := []rules.Rule{fwd("pf-api", 6443, 6443, "491"), fwd("pf-0", 2222, 22, "491"), fwd("pf-1", 2223, 22, "492"),
		fwd("pf-2", 2224, 22, "493")}
	in.Rules = &RulesView{
		Layout: rules.Layout{Network: rules.NetworkVPC, IPAddressID: "ip-vpc", NetworkID: "tier", VPCAPI: rules.VPCAPIForward,
			Nodes: []rules.Node{{ID: "491", Name: controlName, Role: naming.RoleControl}, {ID: "492", Name: worker1Name, Role: naming.RoleWorker},
				{ID: "493", Name: worker2Name, Role: naming.RoleWorker}}},
		Rules: forwards, NetworkForwards: forwards,
		ACL: &rules.TierACL{ID: "acl-1", Name: "web", Items: []rules.ACLItem{
			item("acl-ssh", 1, "TCP", 22, "0.0.0.0/0", "::/0"), item("acl-api", 2, "TCP", 6443, "0.0.0.0/0", "::/0"),
			item("acl-web", 3, "tcp", 443, "0.0.0.0/0")}},
	}
	return in
}

func TestVPCTierInSync(t *testing.T) {
	t.Parallel()
	assertKinds(t, Compare(vpcInput()))
}

// A deleted CKS item is drift: CloudStack cannot reach the cluster
// through the tier without it.
func TestVPCTierMissingACLItem(t *testing.T) {
	t.Parallel()
	in := vpcInput()
	in.Rules.ACL.Items = in.Rules.ACL.Items[1:]
	r := Compare(in)
	assertKinds(t, r, KindNetworkACLItemMissing)
	if msg := r.Findings[0].Message; !strings.Contains(msg, "TCP 22") || !strings.Contains(msg, "web (acl-1)") {
		t.Errorf("message %q", msg)
	}
	// On default_allow CKS keeps no item.
	in.Rules.ACL = &rules.TierACL{ID: "acl-2", Name: "default_allow", DefaultAllow: true}
	assertKinds(t, Compare(in))
}

// The API forward is required on a tier whose offering is not in conserve
// mode; one that leads to a worker is reported once, as stale.
func TestVPCTierAPIForward(t *testing.T) {
	t.Parallel()
	in := vpcInput()
	in.Rules.Rules = in.Rules.Rules[1:]
	assertKinds(t, Compare(in), KindAPIRuleMissing)

	in = vpcInput()
	in.Rules.Rules[0].VMID = "492"
	r := Compare(in)
	assertKinds(t, r, KindAPIRuleMismatch)
	if !strings.Contains(r.Findings[0].Message, "not a control node") {
		t.Errorf("message %q", r.Findings[0].Message)
	}
}

// A user forward of the tier that the next scale up would delete is a
// scale hazard, on whichever of the tier's IPs it is.
func TestVPCTierScaleHazard(t *testing.T) {
	t.Parallel()
	in := vpcInput()
	user := rules.Rule{ID: "pf-user", Kind: rules.KindPortForward, Protocol: "tcp", StartPort: 2225, EndPort: 2225,
		PrivatePort: 8080, PrivateEndPort: 8080, VMID: "493", IPAddressID: "ip-other", NetworkID: "tier"}
	in.Rules.NetworkForwards = append(in.Rules.NetworkForwards, user)
	r := Compare(in)
	assertKinds(t, r, KindScaleHazard)
	if f := r.Findings[0]; f.RuleID != "pf-user" || !strings.Contains(f.Message, "4 node VM(s) or more") {
		t.Errorf("finding %+v", f)
	}
	// Beyond the port the next node would get: not yet.
	in.Rules.NetworkForwards[len(in.Rules.NetworkForwards)-1].StartPort = 2226
	assertKinds(t, Compare(in))
}
