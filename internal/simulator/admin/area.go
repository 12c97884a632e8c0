// Package admin is the simulator's admin API: what an operator, or a failing
// system, does to a CloudStack installation behind the API's back (map rows
// deleted, kubelets stopped, VMs and rules changed, faults injected, the
// clock moved), the dump of the model, and their HTTP routes under /admin/.
// It stands on cluster, the top area; the simulator's public API delegates
// its admin methods here.
package admin

import "github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/cluster"

// Admin is the admin API of one simulator.
type Admin struct {
	*cluster.Workers
}

// New returns the admin API on the simulator's areas.
func New(cl *cluster.Workers) *Admin { return &Admin{Workers: cl} }
