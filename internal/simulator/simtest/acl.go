package simtest

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// ACLItems lists the items of a network ACL list.
func (e *Env) ACLItems(aclID string) []cloudstack.NetworkACLItem {
	e.t.Helper()
	list, err := e.API.ListNetworkACLs(e.t.Context(), cloudstack.ListNetworkACLsParams{ACLID: aclID})
	if err != nil {
		e.t.Fatalf("listing the items of network ACL list %s: %v", aclID, err)
	}
	return list
}

// DeleteCKSACLItems deletes, as a user outside CKS would, every item of the
// list that CKS made for a port (protocol "TCP", that port alone).
func (e *Env) DeleteCKSACLItems(aclID string, port int) {
	e.t.Helper()
	deleted := 0
	for _, it := range e.ACLItems(aclID) {
		if it.Protocol == "TCP" && it.StartPort == port && it.EndPort == port {
			if err := e.Sim.DeleteACLItem(it.ID); err != nil {
				e.t.Fatal(err)
			}
			deleted++
		}
	}
	if deleted == 0 {
		e.t.Fatalf("network ACL list %s has no CKS item for port %d", aclID, port)
	}
}
