package sharedreads

import (
	"context"
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// ListFirewallRules, in a Shared context, serves a list asked for again
// from the first answer and, once the process shares (API.sharing), the
// firewall rules of one IP address listed with listall from the owner's
// shared list: the server's ipaddressid filter keeps the rules whose
// source IP is that address (FirewallManagerImpl.listFirewallRules), and
// so does this one.
func (a *API) ListFirewallRules(ctx context.Context, p cloudstack.ListRulesParams) ([]cloudstack.FirewallRule, error) {
	switch {
	case !isShared(ctx):
		return a.API.ListFirewallRules(ctx, p)
	case !a.sharing(ctx) || !p.ListAll || p.ID != "" || p.NetworkID != "" || p.IPAddressID == "":
		return sharedList(ctx, a, fmt.Sprintf("firewall %+v", p), func(ctx context.Context) ([]cloudstack.FirewallRule, error) {
			return a.API.ListFirewallRules(ctx, p)
		})
	}
	all, err := a.firewalls(ctx, p.ProjectID)
	out := filter(all, func(r cloudstack.FirewallRule) bool { return r.IPAddressID == p.IPAddressID })
	if err != nil || len(out) == 0 {
		// The owner's list failed (one page of many, which this read does
		// not need), no rule, or an address the server refuses to list
		// rules of (one released keeps its id, and answers 431): let the
		// server say.
		return a.API.ListFirewallRules(ctx, p)
	}
	return out, nil
}

// ListPortForwardingRules is ListFirewallRules for the port forwards of
// one IP address or one network, filtered as the server's ipaddressid and networkid
// filters do (RulesManagerImpl.listPortForwardingRules).
func (a *API) ListPortForwardingRules(ctx context.Context, p cloudstack.ListRulesParams) ([]cloudstack.PortForwardingRule, error) {
	switch {
	case !isShared(ctx):
		return a.API.ListPortForwardingRules(ctx, p)
	case !a.sharing(ctx) || !p.ListAll || p.ID != "" || (p.IPAddressID == "") == (p.NetworkID == ""):
		return sharedList(ctx, a, fmt.Sprintf("forwards %+v", p), func(ctx context.Context) ([]cloudstack.PortForwardingRule, error) {
			return a.API.ListPortForwardingRules(ctx, p)
		})
	}
	all, err := a.forwards(ctx, p.ProjectID)
	out := filter(all, func(r cloudstack.PortForwardingRule) bool {
		return (p.IPAddressID == "" || r.IPAddressID == p.IPAddressID) && (p.NetworkID == "" || r.NetworkID == p.NetworkID)
	})
	if err != nil || len(out) == 0 {
		return a.API.ListPortForwardingRules(ctx, p)
	}
	return out, nil
}

func filter[T any](all []T, keep func(T) bool) []T {
	var out []T
	for _, r := range all {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// firewalls is the shared list of the firewall rules of the accounts the
// caller may see (project "") or of one project. It is not copied for
// each reader: readers get the rules filter keeps, in a list of their own.
func (a *API) firewalls(ctx context.Context, project string) ([]cloudstack.FirewallRule, error) {
	return shared(ctx, a, "firewall|"+project, func(ctx context.Context) ([]cloudstack.FirewallRule, error) {
		return a.API.ListFirewallRules(ctx, cloudstack.ListRulesParams{ProjectID: project, ListAll: true})
	})
}

// forwards is firewalls for the port forwards.
func (a *API) forwards(ctx context.Context, project string) ([]cloudstack.PortForwardingRule, error) {
	return shared(ctx, a, "forwards|"+project, func(ctx context.Context) ([]cloudstack.PortForwardingRule, error) {
		return a.API.ListPortForwardingRules(ctx, cloudstack.ListRulesParams{ProjectID: project, ListAll: true})
	})
}

// prefetchRules asks for the owner's shared rule lists without waiting for
// them; a reader later waits for the ones in flight. A failure is not kept.
func (a *API) prefetchRules(ctx context.Context, project string) {
	go func() { _, _ = a.firewalls(ctx, project) }()
	go func() { _, _ = a.forwards(ctx, project) }()
}
