// Package simulator is an in-process model of the Apache CloudStack 4.22 API
// subset that the Kubernetes Service (CKS) uses, faithful enough to run the
// provider's demo and acceptance tests and users' policy gates against.
// FIDELITY.md lists, for each simulated behaviour, the CloudStack class and
// method it follows, and each known approximation.
//
// Packages, each importing only those below it (TestSimulatorPackagesFormLayers):
//
//	model      the database rows (accounts, networks, rules, VMs, clusters,
//	           jobs, ISOs), their states, lookups and CKS's naming
//	wire       the API's format: parameters, error codes and responses,
//	           the JSON envelope, request signatures
//	loopback   the 127.A.B.0/24 blocks of public IPs and the Shared network
//	profiles   the CloudStack builds the simulator behaves as (Options.Profile)
//	faults     injected API failures, lost answers, latencies, job step
//	           failures and the call counters
//	endpoints  the SSH servers and Kubernetes APIs behind each cluster IP
//	core       the runtime every area shares: the model's lock (whose unlock
//	           publishes the endpoints' view), the model, the random
//	           sources and ids, the clock, the job runner, the faults and
//	           counters, the profile, the caller and its access rules, and
//	           list paging and order
//	catalog    zones, offerings, templates, Kubernetes versions and their
//	           ISOs, CNI configurations, key pairs, domains, accounts,
//	           projects, and the queries of async jobs
//	network    isolated networks, VPCs and tiers, the Shared network, public
//	           and guest addresses, firewall, forwarding and load balancer
//	           rules, network ACL lists and items
//	cluster    the cluster commands and the CKS action workers that run
//	           them, the VMs, the VM map and Kubernetes nodes, user VMs and
//	           their tags, and the state scanner
//	admin      the admin API: changes behind the API's back, injected
//	           faults, the clock, the dump, and their HTTP routes
//	simulator  this package: the public API (New, Options, Info, and the
//	           admin methods, which delegate to package admin), the command
//	           dispatch, the seed data and the view the endpoints read
//	simtest    helpers for tests that run on the simulator
//
// Wire protocol (package wire): /client/api accepts GET and POST forms signed with
// HMAC-SHA1 as ApiServer.verifyRequest checks them (signatureversion 3 needs
// an unexpired expires), answers CloudStack's JSON envelopes (lists with the
// total count, {} when empty, {count} past the last page, async {jobid} and
// {id,jobid}), and error bodies whose HTTP status is the error code. Failed
// jobs carry {"uuidList":[],"errorcode":...,"errortext":...}.
//
// List order: every list comes in the order the management server's query
// gives it: listFirewallRules and listPortForwardingRules newest first
// (ORDER BY id DESC), listNetworks newest first, listPublicIpAddresses by
// address descending, load balancer rules, clusters, VMs and the rest oldest
// first; paging applies after the order. The workers' own queries
// (removeSshFirewallRule, the forward cleanup) read ascending ids, the
// reverse of what the API shows. Options.ListOrder ("reversed",
// "shuffled") and cksim -list-order reorder every list, nested
// virtualmachines[] included, to check that a client does not depend on an
// order the server does not promise. Rules created with fordisplay=false are
// hidden from callers other than root admins, yet the workers evaluate them.
//
// Model: zones, offerings, Kubernetes versions, accounts, projects, key
// pairs, isolated networks (created as <name>-network or given), VPC tiers,
// public IPs on a loopback block 127.A.B.0/24 reserved per instance, VMs
// (each on its own service offering), the VM map, Kubernetes node
// registrations and the shared firewall_rules table (firewall,
// port-forwarding and load balancer rules on one ascending id sequence,
// conflict detection as FirewallManagerImpl does it). Create, scale,
// upgrade, start, stop and delete run as async jobs with the choreography of
// the CKS action workers:
//
//   - scale follows KubernetesClusterScaleWorker.scaleCluster: node types
//     CONTROL, ETCD, WORKER; a size-only scale maps DEFAULT to the cluster's
//     service offering, so a node type whose first VM is on another offering
//     gets an offering change, which KVM refuses for running VMs; a size
//     change (size or nodeids) is refused while the VM map has fewer rows
//     than C + node_count + E; node_count is written after the VMs and
//     rules, and nothing is rolled back;
//   - removeSshFirewallRule's first-match predicate (apache/cloudstack#14159)
//     and the network-wide forward cleanup that follows it;
//   - start reads the kubeconfig over SSH through the cluster IP's port 2222
//     and checks the API on 6443; upgrade runs each node's script through
//     its forward 2222+i; a missing forward fails the job (Alert);
//   - delete checks the network before the cluster moves to Destroying.
//
// Kubernetes versions are added, enabled or disabled and deleted as
// KubernetesVersionManagerImpl does (delete refuses while a cluster uses the
// version); each added version's binaries ISO downloads in the background
// over Options.ISODownloadDuration (Creating, then Ready, or back to
// Allocated with an error string that listIsos shows; SetISODownload and
// the admin route iso/download decide per URL). CNI configurations are
// user data: registered, listed and deleted as UserDataRegistryServiceImpl
// does, and a cluster whose configuration was deleted fails the cluster
// list, as the server's NullPointerException does.
//
// Profiles (Profiles()): "4.22.1.1" (default), "4.22.0.0" (a TCP firewall
// rule without ports reached by removeSshFirewallRule throws a
// NullPointerException: 530, the cluster stays in Scaling or Destroying) and
// "pr14165" (the open fix: the rule starting at 2222 first; "fixed" is an
// alias). Each reports its cloudstackversion in listCapabilities.
//
// The cluster state machine is KubernetesCluster.State's. The state scanner
// (KubernetesClusterStatusScanner) runs on a timer, every
// Options.ScannerInterval (30 s by default), never because of an API call:
// Running with a short map or a VM not Running goes to Alert; Alert goes
// back to Running only with exactly C+W+E map rows, kubectl over SSH through
// 2222 counting every node Ready, the API on 6443 and the kubeconfig; Alert
// with every VM stopped (and a complete map) goes to Stopped; Stopped stays
// Stopped whatever its VMs. RunScanner runs it at once; SetScannerInterval,
// the admin route scanner/interval and cksim -scanner-interval change the
// period; Options.DisableScanner and cksim -no-scanner stop the timer.
//
// Each cluster's IP gets real endpoints from package endpoints: an SSH server
// per port-forwarding rule to port 22 and a Kubernetes API on port 6443 that
// authenticates the client certificate of the admin kubeconfig
// (getKubernetesClusterConfig returns kubeadm's admin.conf: client
// certificate and key, no token), so real kubectl and client-go work. A
// stopped kubelet leaves its node NotReady; only a delete (DeleteKubeNode,
// the scale-down drain) removes it.
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
//	delete            vms, network, forwards (on a user network, after the API and
//	                  SSH rule revokes)
//	rule              apply (create/delete firewall and port-forwarding rule jobs)
//
// A failure at a step has the consequences the server's failure there has
// (Error or Alert, no rollback, stale size), with the server's message or
// the injected one.
package simulator
