// Package simulator is an in-process model of the Apache CloudStack 4.22 API
// subset that the Kubernetes Service (CKS) uses, faithful enough to run the
// provider's demo and acceptance tests and users' policy gates against.
//
// Wire protocol: /client/api accepts GET and POST forms signed with
// HMAC-SHA1 as ApiServer.verifyRequest checks them (signatureversion 3 needs
// an unexpired expires), answers CloudStack's JSON envelopes (lists with the
// total count, {} when empty, {count} past the last page, async {jobid} and
// {id,jobid}), and error bodies whose HTTP status is the error code.
//
// Model: zones, offerings, Kubernetes versions, accounts, projects, key
// pairs, isolated networks (created as <name>-network or given), VPC tiers,
// public IPs on a loopback block 127.A.B.0/24 reserved per instance, VMs,
// the VM map, Kubernetes node registrations and the shared firewall_rules
// table (firewall, port-forwarding and load balancer rules on one ascending
// id sequence, conflict detection as FirewallManagerImpl does it). Create,
// scale, upgrade, start, stop and delete run as async jobs with the rule
// choreography of CKS, including removeSshFirewallRule's first-match
// predicate (the #14159 bug) on profile "4.22.1.1" and its fix on "fixed".
// The cluster state machine and the state scanner (run on every
// listKubernetesClusters call) are modelled.
//
// Each cluster's IP gets real endpoints from package endpoints: an SSH server
// per port-forwarding rule to port 22 and a Kubernetes API on port 6443.
//
// Out-of-band changes and faults are available as methods on *Simulator, as
// JSON routes under /admin/ (AdminRoutes) and as "cksim admin" subcommands.
// FailJobStep injects a failure at a named job step (JobSteps):
//
//	create            network, etcd-vms, control-vms, worker-vms, network-rules,
//	                  etcd-rules, api, nodes-ready, kubeconfig, dashboard
//	scale-up          vms (after validation, before new VMs), network-rules, nodes-ready
//	scale-down        remove-vm (before each VM is removed), vm-removed (after
//	                  each VM is removed), network-rules
//	scale-offering    vms
//	scale-autoscaling autoscaler
//	upgrade           node (before each non-etcd node is upgraded)
//	start             vms, api, kubeconfig
//	stop              vms
//	delete            vms, network
//	rule              apply (create/delete firewall and port-forwarding rule jobs)
//
// A failure at a step has the consequences the server's failure there has
// (Error or Alert, no rollback, stale size), with the server's message or
// the injected one.
package simulator
