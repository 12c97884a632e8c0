package cloudstack_test

import (
	"context"
	"encoding/base64"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// listCall reads one list of the client. It returns the list as a value
// to compare, and how many objects it has.
type listCall func(ctx context.Context, c *cloudstack.Client) (any, int, error)

// listed adapts a List method's result to a listCall's.
func listed[T any](items []T, err error) (any, int, error) { return items, len(items), err }

// Every list the client reads comes back in one order whatever order the
// server lists in: the real one, reversed, or shuffled anew on every call.
// So nothing above the client can depend on a list order CloudStack does
// not promise, and the provider's tests need not run again under every
// order (GNUmakefile, test-list-orders). Each List method of the client
// must have a call here, and each call must find more than one object, or
// the order it comes in would prove nothing.
func TestEveryListHasOneOrder(t *testing.T) {
	t.Parallel()
	env := simtest.Start(t, simtest.WithListOrder(simulator.ListOrderReal))
	ctx := t.Context()
	etcd := env.NewCluster(cloudstack.CreateClusterParams{Name: "etcd", EtcdNodes: 2, Size: 2})
	if err := env.Scale(etcd.ID, 3); err != nil {
		t.Fatal(err)
	}
	env.NewCluster(cloudstack.CreateClusterParams{Name: "plain", Size: 2})
	env.NewCluster(cloudstack.CreateClusterParams{Name: "tier", Size: 1, NetworkID: env.Info.VPCTierNetworkID})
	for _, name := range []string{"calico", "cilium"} {
		if _, err := env.API.RegisterCniConfiguration(ctx, cloudstack.RegisterCNIParams{Name: name, Config: base64.StdEncoding.EncodeToString([]byte("#cloud-config\n"))}); err != nil {
			t.Fatal(err)
		}
	}
	// The seed has one zone and one project, and the simulator models no
	// call that adds another; their lists go through the same collectPages
	// as the others, which show its order.
	single := []string{"ListZones", "ListProjects"}

	all := cloudstack.Ownership{}
	calls := map[string]listCall{
		"ListKubernetesClusters": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListKubernetesClusters(ctx, cloudstack.ListClustersParams{ListAll: true}))
		},
		"ListVirtualMachines": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListVirtualMachines(ctx, cloudstack.ListVMsParams{Ownership: all, ListAll: true}))
		},
		"ListFirewallRules": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListFirewallRules(ctx, cloudstack.ListRulesParams{ListAll: true}))
		},
		"ListPortForwardingRules": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListPortForwardingRules(ctx, cloudstack.ListRulesParams{ListAll: true}))
		},
		"ListLoadBalancerRules": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListLoadBalancerRules(ctx, cloudstack.ListRulesParams{ListAll: true}))
		},
		"ListPublicIPAddresses": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListPublicIPAddresses(ctx, cloudstack.ListPublicIPParams{ListAll: true}))
		},
		"ListNetworks": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListNetworks(ctx, cloudstack.ListNetworksParams{}))
		},
		"ListKubernetesSupportedVersions": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListKubernetesSupportedVersions(ctx, ""))
		},
		"ListZones": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListZones(ctx))
		},
		"ListServiceOfferings": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListServiceOfferings(ctx, cloudstack.ListServiceOfferingsParams{}))
		},
		"ListProjects": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListProjects(ctx, cloudstack.ListProjectsParams{}))
		},
		"ListAsyncJobs": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListAsyncJobs(ctx))
		},
		"ListCniConfigurations": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListCniConfigurations(ctx, cloudstack.ListCNIParams{Ownership: all, ListAll: true}))
		},
		"ListNetworkACLs": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListNetworkACLs(ctx, cloudstack.ListNetworkACLsParams{NetworkID: env.Info.VPCTierNetworkID}))
		},
		"ListNetworkACLLists": func(ctx context.Context, c *cloudstack.Client) (any, int, error) {
			return listed(c.ListNetworkACLLists(ctx, cloudstack.ListNetworkACLListsParams{VPCID: env.Info.VPCID}))
		},
	}
	client := reflect.TypeOf(env.API)
	for i := range client.NumMethod() {
		if name := client.Method(i).Name; strings.HasPrefix(name, "List") && calls[name] == nil {
			t.Errorf("the client's %s has no call in this test: add one, so that its order is checked", name)
		}
	}

	// Two rows a page, so that the order also decides what each page
	// holds. A shuffled list is read in one page: a new permutation on
	// every call reorders the rows between pages, which no database does
	// within one query plan.
	read := func(order string) map[string]any {
		t.Helper()
		if err := env.Sim.SetListOrder(order); err != nil {
			t.Fatal(err)
		}
		pageSize := 2
		if order == simulator.ListOrderShuffled {
			pageSize = cloudstack.DefaultPageSize
		}
		cloudstack.SetPageSize(env.API, pageSize)
		got := map[string]any{}
		for name, call := range calls {
			list, n, err := call(ctx, env.API)
			if err != nil {
				t.Fatalf("%s (%s order): %v", name, orderName(order), err)
			}
			if n < 2 && !slices.Contains(single, name) {
				t.Errorf("%s found %d objects: too few to show an order", name, n)
			}
			got[name] = list
		}
		return got
	}

	want := read(simulator.ListOrderReal)
	wantListed := listingOrder(t, want["ListFirewallRules"])
	for _, order := range []string{simulator.ListOrderReversed, simulator.ListOrderShuffled, simulator.ListOrderShuffled} {
		got := read(order)
		gotListed := listingOrder(t, got["ListFirewallRules"])
		for name, list := range got {
			if !reflect.DeepEqual(withoutListed(list), withoutListed(want[name])) {
				t.Errorf("%s in the %s order: the client returned\n%+v\nnot, as in the server's own order,\n%+v",
					name, orderName(order), list, want[name])
			}
		}
		// Listed keeps the server's order, the one hint of a rule's age.
		if order == simulator.ListOrderReversed && !slices.Equal(gotListed, reversed(wantListed)) {
			t.Errorf("firewall rules listed in reverse: Listed gives %v, not the reverse of %v", gotListed, wantListed)
		}
	}
}

func orderName(order string) string {
	if order == simulator.ListOrderReal {
		return "real"
	}
	return order
}

// listingOrder is the ids of firewall rules in the order the server listed
// them.
func listingOrder(t *testing.T, list any) []string {
	t.Helper()
	rules, ok := list.([]cloudstack.FirewallRule)
	if !ok {
		t.Fatalf("firewall rules came as %T", list)
	}
	byListed := slices.SortedFunc(slices.Values(rules), func(a, b cloudstack.FirewallRule) int { return a.Listed - b.Listed })
	ids := make([]string, len(byListed))
	for i, fw := range byListed {
		ids[i] = fw.ID
	}
	return ids
}

// withoutListed is a list with every firewall rule's Listed cleared: the
// place in the server's listing is meant to differ between orders.
func withoutListed(list any) any {
	rules, ok := list.([]cloudstack.FirewallRule)
	if !ok {
		return list
	}
	out := slices.Clone(rules)
	for i := range out {
		out[i].Listed = 0
	}
	return out
}

func reversed(ids []string) []string {
	out := slices.Clone(ids)
	slices.Reverse(out)
	return out
}
