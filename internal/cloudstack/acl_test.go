package cloudstack

import (
	"net/http"
	"net/url"
	"reflect"
	"testing"
)

func TestClientNetworkACLCalls(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listNetworkACLs", func(_ *http.Request, p url.Values) (int, string) {
		if p.Get("aclid") != "acl-1" || p.Get("listall") != "true" {
			t.Errorf("listNetworkACLs params = %v", p)
		}
		return 200, envelope("listNetworkACLs", map[string]any{"count": 2, "networkacl": []map[string]any{
			{"id": "i-2", "aclid": "acl-1", "aclname": "web", "number": 1, "protocol": "TCP", "startport": "22", "endport": "22",
				"cidrlist": "0.0.0.0/0,::/0", "traffictype": "Ingress", "action": "Allow", "state": "Active"},
			{"id": "i-1", "aclid": "acl-1", "aclname": "web", "number": 2, "protocol": "all", "cidrlist": "10.0.0.0/8",
				"traffictype": "Egress", "action": "Deny", "state": "Active", "reason": "lab"},
		}})
	})
	fake.handle("listNetworkACLLists", func(_ *http.Request, p url.Values) (int, string) {
		if p.Get("id") != "acl-1" {
			t.Errorf("listNetworkACLLists params = %v", p)
		}
		return 200, envelope("listNetworkACLLists", map[string]any{"count": 1, "networkacllist": []map[string]any{
			{"id": "acl-1", "name": "web", "description": "tier list", "vpcid": "vpc-1"}}})
	})
	fake.handle("createNetworkACL", okJSON("createNetworkACL", map[string]any{"id": "i-3", "jobid": "job-create"}))
	fake.handle("deleteNetworkACL", okJSON("deleteNetworkACL", map[string]any{"jobid": "job-delete"}))
	fake.handle("moveNetworkAclItem", okJSON("moveNetworkAclItem", map[string]any{"jobid": "job-move"}))
	fake.handle("updateNetworkACLItem", okJSON("updateNetworkACLItem", map[string]any{"jobid": "job-apply"}))
	c := newTestClient(t, fake.start().URL)
	ctx := t.Context()

	items, err := c.ListNetworkACLs(ctx, ListNetworkACLsParams{ACLID: "acl-1"})
	// Sorted by id, whatever order the server listed them in.
	want := []NetworkACLItem{
		{ID: "i-1", ACLID: "acl-1", ACLName: "web", Number: 2, Protocol: "all", CIDRList: []string{"10.0.0.0/8"},
			TrafficType: "Egress", Action: "Deny", State: "Active", Reason: "lab"},
		{ID: "i-2", ACLID: "acl-1", ACLName: "web", Number: 1, Protocol: "TCP", StartPort: 22, EndPort: 22,
			CIDRList: []string{"0.0.0.0/0", "::/0"}, TrafficType: "Ingress", Action: "Allow", State: "Active"},
	}
	if err != nil || !reflect.DeepEqual(items, want) {
		t.Errorf("ListNetworkACLs = %+v, %v", items, err)
	}
	lists, err := c.ListNetworkACLLists(ctx, ListNetworkACLListsParams{ID: "acl-1"})
	if err != nil || len(lists) != 1 || lists[0] != (NetworkACLList{ID: "acl-1", Name: "web", Description: "tier list", VPCID: "vpc-1"}) {
		t.Errorf("ListNetworkACLLists = %+v, %v", lists, err)
	}

	ref, err := c.CreateNetworkACL(ctx, CreateNetworkACLParams{ACLID: "acl-1", Protocol: "TCP", StartPort: 22, EndPort: 22,
		TrafficType: "Ingress", Action: "Allow"})
	if err != nil || ref != (AsyncRef{ID: "i-3", JobID: "job-create"}) {
		t.Errorf("CreateNetworkACL = %+v, %v", ref, err)
	}
	// No CIDR list: CloudStack opens the item to 0.0.0.0/0 and ::/0, as for CKS's own.
	if p := fake.recorded("createNetworkACL")[0].params; p.Get("protocol") != "TCP" || p.Get("startport") != "22" ||
		p.Get("aclid") != "acl-1" || p.Has("cidrlist") || p.Has("number") {
		t.Errorf("createNetworkACL params = %v", p)
	}
	if ref, err := c.DeleteNetworkACL(ctx, "i-3"); err != nil || ref.JobID != "job-delete" {
		t.Errorf("DeleteNetworkACL = %+v, %v", ref, err)
	}
	if ref, err := c.MoveNetworkACLItem(ctx, "i-3", "", "i-2"); err != nil || ref.JobID != "job-move" {
		t.Errorf("MoveNetworkACLItem = %+v, %v", ref, err)
	}
	if p := fake.recorded("moveNetworkAclItem")[0].params; p.Get("id") != "i-3" || p.Get("nextaclruleid") != "i-2" || p.Has("previousaclruleid") {
		t.Errorf("moveNetworkAclItem params = %v", p)
	}
	if ref, err := c.ApplyNetworkACLItem(ctx, "i-3"); err != nil || ref.JobID != "job-apply" {
		t.Errorf("ApplyNetworkACLItem = %+v, %v", ref, err)
	}
	if p := fake.recorded("updateNetworkACLItem")[0].params; p.Get("id") != "i-3" || p.Has("number") || p.Has("partialupgrade") {
		t.Errorf("updateNetworkACLItem params = %v", p)
	}
	for _, cmd := range []string{"createNetworkACL", "deleteNetworkACL", "moveNetworkAclItem", "updateNetworkACLItem"} {
		if m := fake.recorded(cmd)[0].method; m != http.MethodPost {
			t.Errorf("%s sent as %s", cmd, m)
		}
	}
}

// A released IP keeps its uuid, and listing its rules is a 431 that says it
// is not ready for rules: no rule is left on it.
func TestIsAddressReleased(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&Error{ErrorCode: 431, Text: "Ip address id=27 not ready for firewall rules yet"}, true},
		{&Error{HTTPStatus: 431, Text: "Ip address id=27 not ready for port forwarding rules yet"}, true},
		{&Error{ErrorCode: 431, Text: "Invalid parameter ipaddressid value=x due to incorrect long value format, or entity does not exist"}, false},
		{&Error{ErrorCode: 530, Text: "Ip address id=27 not ready for firewall rules yet"}, false},
		{nil, false},
	} {
		if got := IsAddressReleased(tc.err); got != tc.want {
			t.Errorf("IsAddressReleased(%v) = %t, want %t", tc.err, got, tc.want)
		}
	}
}
