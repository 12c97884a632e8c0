package simulator

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// List order modes (Options.ListOrder).
const (
	// ListOrderReal returns every list in the order the management server
	// builds it (see FIDELITY.md): listFirewallRules and
	// listPortForwardingRules newest first, listNetworks newest first,
	// listPublicIpAddresses by address descending, everything else by id
	// ascending.
	ListOrderReal = ""
	// ListOrderReversed returns every list (virtualmachines[] of a cluster
	// included) in the reverse of the real order.
	ListOrderReversed = "reversed"
	// ListOrderShuffled returns every list randomly permuted, anew on every
	// call (seeded from Options.Seed when it is non-zero).
	ListOrderShuffled = "shuffled"
)

// ListOrderEnv names the environment variable that ListOrderFromEnv reads,
// so that a whole test suite, or cksim, can be rerun under another order.
const ListOrderEnv = "CKS_SIM_LIST_ORDER"

// ListOrderFromEnv is the list order the environment asks for, "" (the
// real order) when it asks for none.
func ListOrderFromEnv() string { return os.Getenv(ListOrderEnv) }

// OrderedListOrderFromEnv is ListOrderFromEnv, except that shuffled becomes
// the real order: for tests of a verdict that reads the server's list order
// (an untouched cluster's etcd rules), which a shuffled list hides.
func OrderedListOrderFromEnv() string {
	if o := ListOrderFromEnv(); o != ListOrderShuffled {
		return o
	}
	return ListOrderReal
}

// ListOrders returns the valid values of Options.ListOrder.
func ListOrders() []string { return []string{ListOrderReal, ListOrderReversed, ListOrderShuffled} }

func validListOrder(mode string) error {
	if slices.Contains(ListOrders(), mode) {
		return nil
	}
	return fmt.Errorf("simulator: unknown list order %q (want %q, %q or %q)", mode, ListOrderReal, ListOrderReversed, ListOrderShuffled)
}

// newOrderRNG is the random source of the shuffled list order, separate
// from the id generator so that shuffling never changes the ids a seeded
// simulator hands out.
func newOrderRNG(seed uint64) *rand.Rand {
	if seed == 0 {
		return newRNG(0)
	}
	return newRNG(seed ^ 0x6a09e667f3bcc909)
}

// newTwinRNG is the random source of findByNetworkAndPorts' pick among
// port forwards with the same public ports.
func newTwinRNG(seed uint64) *rand.Rand {
	if seed == 0 {
		return newRNG(0)
	}
	return newRNG(seed ^ 0xbb67ae8584caa73b)
}

// orderList applies Options.ListOrder to a list given in the server's real
// order. It returns a new slice. Callers hold s.mu.
func orderList[T any](s *Simulator, items []T) []T {
	out := slices.Clone(items)
	switch s.opts.ListOrder {
	case ListOrderReversed:
		slices.Reverse(out)
	case ListOrderShuffled:
		s.orderRNG.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out
}

// Worker rule orders (Options.WorkerRuleOrder).
const (
	// WorkerRuleOrderAscending reads rules by id, as MySQL answers a query
	// without ORDER BY on the firewall_rules table in practice.
	WorkerRuleOrderAscending = ""
	// WorkerRuleOrderDescending reads them newest first.
	WorkerRuleOrderDescending = "descending"
)

// workerOrder puts rules listed in id order into the order the CKS workers
// read them in (Options.WorkerRuleOrder). It returns a new slice.
func (s *Simulator) workerOrder(rules []*model.Rule) []*model.Rule {
	out := slices.Clone(rules)
	if s.opts.WorkerRuleOrder == WorkerRuleOrderDescending {
		slices.Reverse(out)
	}
	return out
}
