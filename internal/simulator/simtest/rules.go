package simtest

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// Forwards lists the port forwards of the cluster's network, on any of its
// public IPs.
func (e *Env) Forwards(cl *cloudstack.Cluster) []cloudstack.PortForwardingRule {
	e.t.Helper()
	list, err := e.API.ListPortForwardingRules(e.t.Context(), cloudstack.ListRulesParams{NetworkID: cl.NetworkID,
		ProjectID: cl.ProjectID})
	if err != nil {
		e.t.Fatalf("listing the forwards of cluster %s: %v", cl.Name, err)
	}
	return list
}

// ForwardsOn lists the port forwards on one public IP.
func (e *Env) ForwardsOn(ipID string) []cloudstack.PortForwardingRule {
	e.t.Helper()
	list, err := e.API.ListPortForwardingRules(e.t.Context(), cloudstack.ListRulesParams{IPAddressID: ipID, ListAll: true})
	if err != nil {
		e.t.Fatalf("listing the forwards on IP %s: %v", ipID, err)
	}
	return list
}

// FirewallRulesOn lists the firewall rules on one public IP.
func (e *Env) FirewallRulesOn(ipID string) []cloudstack.FirewallRule {
	e.t.Helper()
	list, err := e.API.ListFirewallRules(e.t.Context(), cloudstack.ListRulesParams{IPAddressID: ipID, ListAll: true})
	if err != nil {
		e.t.Fatalf("listing the firewall rules on IP %s: %v", ipID, err)
	}
	return list
}

// DeleteForward deletes the forward of a public port of the cluster's
// network, as a user outside CKS would.
func (e *Env) DeleteForward(cl *cloudstack.Cluster, port int) {
	e.t.Helper()
	for _, pf := range e.Forwards(cl) {
		if pf.PublicPort == port {
			if err := e.Sim.DeleteRule(pf.ID); err != nil {
				e.t.Fatal(err)
			}
			return
		}
	}
	e.t.Fatalf("cluster %s has no forward of public port %d", cl.Name, port)
}
