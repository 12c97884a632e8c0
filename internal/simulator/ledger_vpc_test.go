package simulator

import (
	"net/url"
	"slices"
	"strconv"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// The write ledger's VPC tier scenarios: CKS's network ACL items, its
// forwards and the cluster's own VPC IP.

// vpcClusterFields are the fields a create on a VPC tier writes: those of a
// cluster on an isolated network but ipaddress and ipaddressid, which only a
// source NAT IP gives (KubernetesClusterManagerImpl.createKubernetesClusterResponse).
func vpcClusterFields() []string {
	return slices.DeleteFunc(slices.Clone(clusterCreatedFields), func(f string) bool { return f == "ipaddress" || f == "ipaddressid" })
}

func (e *testEnv) vpcLedgerCluster(networkID string, etcd int64) string {
	return e.ledgerCluster(1, etcd, func(p *cloudstack.CreateKubernetesClusterParams) { p.SetNetworkid(networkID) })
}

func vpcCreatedWrites(e *testEnv, acl bool) map[string]ledgerCheck {
	w := map[string]ledgerCheck{
		"state":                states(model.ClusterCreated, model.ClusterStarting, model.ClusterRunning),
		"vm.added":             written,
		"rules.PortForwarding": written,
		"ip.state":             is("allocated"),
		"cluster.etcdips":      written,
	}
	for _, f := range vpcClusterFields() {
		w["cluster."+f] = written
	}
	w["cluster.description"] = is("ledger")
	w["cluster.serviceofferingid"] = is(e.info.ServiceOfferingID)
	if acl {
		w["acl.items"] = written
	}
	return w
}

func vpcScenarios() []ledgerScenario {
	none := func(*testEnv) string { return "" }
	aclCluster := func(e *testEnv) string { return e.vpcLedgerCluster(e.info.VPCACLTierNetworkID, 1) }
	aclItem := func(e *testEnv, id string) string {
		status, body := e.adminCall("createNetworkACL", url.Values{"aclid": {e.info.VPCACLID}, "protocol": {"tcp"},
			"startport": {"8443"}, "cidrlist": {"10.0.0.0/8"}})
		if status != 200 {
			e.t.Fatalf("createNetworkACL: %d %v", status, body)
		}
		e.mustSucceed(asStr(e.t, inner(e.t, body, "createnetworkaclresponse")["jobid"]))
		return id
	}
	itemCommand := func(command string, params func(e *testEnv, item string) url.Values) func(e *testEnv, id string) string {
		return func(e *testEnv, id string) string {
			items := e.aclItems(e.info.VPCACLID)
			status, body := e.adminCall(command, params(e, items[0].Id))
			if status != 200 {
				e.t.Fatalf("%s: %d %v", command, status, body)
			}
			e.mustSucceed(asStr(e.t, inner(e.t, body, wire.LowerCommand(command)+"response")["jobid"]))
			return id
		}
	}
	aclOnly := func(*testEnv, string) map[string]ledgerCheck { return map[string]ledgerCheck{"acl.items": written} }
	return []ledgerScenario{
		{op: "create", name: "VPC tier with its own ACL list", setup: none,
			run:    func(e *testEnv, _ string) string { return aclCluster(e) },
			writes: func(e *testEnv, _ string) map[string]ledgerCheck { return vpcCreatedWrites(e, true) }},
		{op: "create", name: "VPC tier on default_allow", setup: none,
			run:    func(e *testEnv, _ string) string { return e.vpcLedgerCluster(e.info.VPCTierNetworkID, 1) },
			writes: func(e *testEnv, _ string) map[string]ledgerCheck { return vpcCreatedWrites(e, false) }},
		{op: "scale-size", name: "VPC tier, up", setup: aclCluster,
			run: func(e *testEnv, id string) string { e.mustSucceed(e.scale(id, 2)); return id },
			writes: func(e *testEnv, id string) map[string]ledgerCheck {
				cores, memory := e.capacityPlus(id, 1, e.info.ServiceOfferingID)
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterScaling, model.ClusterRunning), "vm.added": is("1"),
					"cluster.size": is(strconv.Itoa(int(e.cluster(id).Size) + 1)), "cluster.cpunumber": is(cores),
					"cluster.memory": is(memory), "rules.PortForwarding": written}
			}},
		{op: "delete", name: "VPC tier with its own ACL list", setup: aclCluster,
			run: func(e *testEnv, id string) string {
				e.mustSucceed(e.deleteCluster(id))
				return id
			},
			writes: func(*testEnv, string) map[string]ledgerCheck {
				w := map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterDestroying, model.ClusterDestroyed), "vm.removed": is("3"),
					"rules.PortForwarding": cleared, "acl.items": written, "ip.state": is("released")}
				for _, f := range append(vpcClusterFields(), "etcdips") {
					w["cluster."+f] = cleared
				}
				return w
			}},
		{op: "delete", name: "VPC tier, fails releasing the IP", setup: func(e *testEnv) string {
			id := aclCluster(e)
			if err := e.sim.FailJobStep("delete", "release-ip", 1, ""); err != nil {
				e.t.Fatal(err)
			}
			return id
		},
			run: func(e *testEnv, id string) string {
				e.mustFail(e.deleteCluster(id))
				return id
			},
			writes: func(*testEnv, string) map[string]ledgerCheck {
				// The items and forwards are gone before the release fails;
				// the cluster stays in Destroying with its IP.
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterDestroying), "vm.removed": is("3"),
					"rules.PortForwarding": cleared, "cluster.etcdips": cleared, "acl.items": written}
			}},
		{op: "rules", name: "createNetworkACL", setup: aclCluster, run: aclItem, writes: aclOnly},
		{op: "rules", name: "deleteNetworkACL", setup: aclCluster,
			run:    itemCommand("deleteNetworkACL", func(_ *testEnv, item string) url.Values { return url.Values{"id": {item}} }),
			writes: aclOnly},
		{op: "rules", name: "updateNetworkACLItem", setup: aclCluster,
			run: itemCommand("updateNetworkACLItem", func(_ *testEnv, item string) url.Values {
				return url.Values{"id": {item}, "cidrlist": {"192.0.2.0/24"}}
			}),
			writes: aclOnly},
		{op: "rules", name: "moveNetworkAclItem", setup: func(e *testEnv) string { return aclItem(e, aclCluster(e)) },
			run: itemCommand("moveNetworkAclItem", func(e *testEnv, item string) url.Values {
				return url.Values{"id": {item}, "nextaclruleid": {e.aclItemNumbered(1)}}
			}),
			writes: aclOnly},
	}
}

// aclItemNumbered returns the id of the custom list's item with a number.
func (e *testEnv) aclItemNumbered(number int) string {
	e.t.Helper()
	for _, it := range e.aclItems(e.info.VPCACLID) {
		if it.Number == number {
			return it.Id
		}
	}
	e.t.Fatalf("no item numbered %d", number)
	return ""
}
