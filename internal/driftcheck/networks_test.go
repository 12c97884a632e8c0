package driftcheck

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

func TestCheckVPCClusterUsesItsOwnPublicIP(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "vpc", Size: 2, NetworkID: e.Info.VPCTierNetworkID})
	if cl.IPAddress != "" {
		t.Fatalf("a VPC tier cluster reports ipaddress %q", cl.IPAddress)
	}

	res, st := e.mustCheck(e.sshRequest(cl.ID))

	assertKinds(t, res)
	if want := clusterview.EndpointHost(cl) + ":2222"; st.Node.Address != want || !res.NodesChecked {
		t.Fatalf("nodes via %q (checked %v: %s), want %s", st.Node.Address, res.NodesChecked, res.NodeCheckError, want)
	}
	if st.CloudStackCalls["listNetworks"] != 1 || st.CloudStackCalls["listFirewallRules"] != 0 {
		t.Fatalf("calls %v: a VPC tier needs its network and has no firewall", st.CloudStackCalls)
	}

	// A missing node forward on the VPC IP is drift like on an isolated network.
	e.DeleteForward(cl, 2223)
	res, _ = e.mustCheck(e.sshRequest(cl.ID))
	assertKinds(t, res, drift.KindSSHForwardMissing)
}

// A project cluster's rules are listed with its projectid, without which
// CloudStack leaves them out (every rule would read as missing): a clean
// cluster is in sync, and rule drift shows like on an account's cluster.
func TestCheckProjectCluster(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t, simtest.WithOrderedList())
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "prj", Size: 1, EtcdNodes: 1, Ownership: cloudstack.Ownership{ProjectID: e.Info.ProjectID}})

	res, st := e.mustCheck(e.sshRequest(cl.ID))
	assertKinds(t, res)
	if strings.Contains(res.Summary, "not checked") {
		t.Fatalf("summary %q: the rules were not compared", res.Summary)
	}
	want := map[string]int{"listKubernetesClusters": 2, "listVirtualMachines": 1, "listFirewallRules": 1, "listPortForwardingRules": 1, "listLoadBalancerRules": 1}
	if !maps.Equal(st.CloudStackCalls, want) {
		t.Fatalf("calls %v, want %v: a project cluster is found by the second, project-wide list", st.CloudStackCalls, want)
	}

	worker := e.NthWorker(cl, 0)
	if err := e.Sim.DeleteKubeNode(worker.ID); err != nil { // the node object deleted out of band
		t.Fatal(err)
	}
	e.DeleteForward(cl, 2223)
	res, _ = e.mustCheck(e.sshRequest(cl.ID))
	assertKinds(t, res, drift.KindVMNotNode, drift.KindSSHForwardMissing)
}

func TestSSHAddressFollowsTheNetworkType(t *testing.T) {
	t.Parallel()
	vms := []cloudstack.ClusterVM{
		{ID: "e1", Name: "c-etcd-1-1a2289f9c60", IsEtcdNode: true, IPAddress: "10.0.0.5"},
		{ID: "c1", Name: "c-control-1a2289f9c61", IPAddress: "10.0.0.6"},
		{ID: "w1", Name: "c-node-1a2289f9c62", IPAddress: "10.0.0.7"},
	}
	cases := []struct {
		name     string
		cluster  cloudstack.Cluster
		wantHost string
		wantPort int
	}{
		{"isolated: source NAT IP", cloudstack.Cluster{IPAddress: "192.0.2.10", Endpoint: "https://192.0.2.10:6443/"}, "192.0.2.10", 2222},
		{"VPC: the cluster's own IP from the endpoint", cloudstack.Cluster{Endpoint: "https://192.0.2.20:6443/"}, "192.0.2.20", 2222},
		{"shared: control node 1 directly", cloudstack.Cluster{Endpoint: "https://10.0.0.6:6443/"}, "10.0.0.6", 22},
		{"shared: the VM the endpoint names", cloudstack.Cluster{Endpoint: "https://10.0.0.5:6443/"}, "10.0.0.5", 22},
		{"shared before the endpoint is set", cloudstack.Cluster{}, "10.0.0.6", 22},
	}
	// The API guarantees no order for the VM map: every order gives the
	// same address.
	for _, order := range [][]cloudstack.ClusterVM{vms, reversed(vms)} {
		for _, tc := range cases {
			cl := tc.cluster
			cl.Name, cl.EtcdNodes, cl.VirtualMachines = "c", 1, order
			host, port := sshAddress(&cl)
			if host != tc.wantHost || port != tc.wantPort {
				t.Errorf("%s (%s first): %s:%d, want %s:%d", tc.name, order[0].Name, host, port, tc.wantHost, tc.wantPort)
			}
		}
	}
	if host, _ := sshAddress(&cloudstack.Cluster{}); host != "" {
		t.Errorf("a cluster without VMs or addresses gives %q", host)
	}
}

func TestCheckManyMixesNetworkTypes(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	e.NewCluster(cloudstack.CreateClusterParams{Name: "iso", Size: 1})
	vpc := e.NewCluster(cloudstack.CreateClusterParams{Name: "vpc", Size: 2, NetworkID: e.Info.VPCTierNetworkID})
	e.DeleteForward(vpc, 2224)

	fleet, st := e.mustCheckMany(e.checker(), Filter{}, 0)

	if fleet.Checked != 2 || fleet.Drifted != 1 {
		t.Fatalf("fleet %s", fleet.Summary)
	}
	assertKinds(t, fleet.Clusters[0].Result)
	assertKinds(t, fleet.Clusters[1].Result, drift.KindSSHForwardMissing)
	// The rules come from one fleet-wide listing; only the VPC tier needs
	// its network and its network ACL list looked up (default_allow: no
	// items to read).
	want := map[string]int{"listKubernetesClusters": 2, "listVirtualMachines": 1, "listFirewallRules": 1,
		"listPortForwardingRules": 1, "listLoadBalancerRules": 1, "listNetworks": 1, "listNetworkACLLists": 1}
	if !maps.Equal(st.CloudStackCalls, want) {
		t.Fatalf("calls %v, want %v", st.CloudStackCalls, want)
	}
}

func reversed[T any](s []T) []T {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// On a tier with a list of its own the check reads the list: CKS's items
// there are in sync, a deleted one is drift (and SSH to the nodes fails
// without it), and on a conserve-mode tier the API load balancer is what
// CKS made.
func TestCheckVPCTierNetworkACL(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "acl", Size: 1, EtcdNodes: 1, NetworkID: e.Info.VPCACLTierNetworkID})
	lb := e.NewCluster(cloudstack.CreateClusterParams{Name: "acl-lb", Size: 1, NetworkID: e.Info.VPCACLTierLBNetworkID})

	res, st := e.mustCheck(e.sshRequest(cl.ID))
	assertKinds(t, res)
	if st.CloudStackCalls["listNetworkACLLists"] != 1 || st.CloudStackCalls["listNetworkACLs"] != 1 {
		t.Fatalf("calls %v: the tier's list and its items are read once", st.CloudStackCalls)
	}
	res, st = e.mustCheck(e.sshRequest(lb.ID))
	assertKinds(t, res)
	if st.CloudStackCalls["listLoadBalancerRules"] != 1 {
		t.Fatalf("calls %v: a conserve-mode tier's API load balancer is read", st.CloudStackCalls)
	}

	e.DeleteCKSACLItems(e.Info.VPCACLID, 22)
	res, _ = e.mustCheck(e.sshRequest(cl.ID))
	assertKinds(t, res, drift.KindNetworkACLItemMissing)
	if res.NodesChecked {
		t.Fatal("the nodes were listed over SSH without the list's item for 22")
	}
	e.DeleteCKSACLItems(e.Info.VPCACLID, 6443)
	req := e.sshRequest(lb.ID)
	req.NodeSource = NodeSourceNone
	res, _ = e.mustCheck(req)
	assertKinds(t, res, drift.KindNetworkACLItemMissing, drift.KindNetworkACLItemMissing)
}
