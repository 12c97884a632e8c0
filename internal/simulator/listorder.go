package simulator

import (
	"fmt"
	"os"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
)

// List order modes (Options.ListOrder); package core says what each does.
const (
	ListOrderReal     = core.ListOrderReal
	ListOrderReversed = core.ListOrderReversed
	ListOrderShuffled = core.ListOrderShuffled
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

// Worker rule orders (Options.WorkerRuleOrder); package core says what each
// does.
const (
	WorkerRuleOrderAscending  = core.WorkerRuleOrderAscending
	WorkerRuleOrderDescending = core.WorkerRuleOrderDescending
)
