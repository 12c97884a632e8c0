// Package core is the simulator's runtime: what every area of the
// management server shares. It holds the model (model.DB) and the lock that
// guards it, whose unlock republishes the view the network endpoints read;
// the random sources that hand out ids and secrets; the simulated clock; the
// job runner, its steps and its injected step failures; the faults and call
// counters; the behaviour profile and the options; the authenticated caller
// and the access rules every command applies; and list paging and order
// (Options.ListOrder, Options.WorkerRuleOrder).
//
// The areas (the catalogue and accounts, networks and rules, the CKS
// workers, the admin API) stand on floors above it and work through a
// *Runtime; none of them reaches another's state except through the
// runtime or an area below its own.
package core
