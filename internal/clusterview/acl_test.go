package clusterview

import (
	"errors"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

func TestReadTierACL(t *testing.T) {
	t.Parallel()
	items := []cloudstack.NetworkACLItem{
		{ID: "i1", Number: 1, Protocol: "TCP", StartPort: 6443, EndPort: 6443, Action: "Allow", TrafficType: "Ingress", State: "Active"},
		{ID: "i2", Number: 2, Protocol: "TCP", StartPort: 22, EndPort: 22, Action: "Allow", TrafficType: "Ingress", State: "Revoke"},
	}
	itemReads := 0
	src := func(lists []cloudstack.NetworkACLList, listErr error) ACLSource {
		return ACLSource{
			Lists: func() ([]cloudstack.NetworkACLList, error) { return lists, listErr },
			Items: func() ([]cloudstack.NetworkACLItem, error) { itemReads++; return items, nil },
		}
	}
	acl, err := ReadTierACL("a", src([]cloudstack.NetworkACLList{{ID: "a", Name: "web", VPCID: "vpc"}}, nil))
	if err != nil || acl.Name != "web" || acl.DefaultAllow || len(acl.Items) != 1 || acl.Items[0].ID != "i1" || itemReads != 1 {
		t.Fatalf("a list of the VPC: %+v, %v after %d item reads; want its one item in force", acl, err, itemReads)
	}
	acl, err = ReadTierACL("d", src([]cloudstack.NetworkACLList{{ID: "d", Name: "default_allow"}}, nil))
	if err != nil || !acl.DefaultAllow || acl.Items != nil || itemReads != 1 {
		t.Errorf("default_allow: %+v, %v after %d item reads; want it told by name and its items not read", acl, err, itemReads)
	}
	if acl, _ := ReadTierACL("d", src([]cloudstack.NetworkACLList{{ID: "d", Name: "default_allow", VPCID: "vpc"}}, nil)); acl.DefaultAllow {
		t.Errorf("a VPC's own list named default_allow is not the global one")
	}
	failed := errors.New("listNetworkACLLists failed")
	if _, err := ReadTierACL("a", src(nil, failed)); !errors.Is(err, failed) {
		t.Errorf("a failed list read gives %v", err)
	}
}
