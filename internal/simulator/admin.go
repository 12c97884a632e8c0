package simulator

import (
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/admin"
)

// The admin API (package admin says what each change does and which
// CloudStack behaviour it stands for): what an operator, or a failing
// system, does behind the API's back, under the names callers know.

// The admin API's types.
type (
	MapRowSpec  = admin.MapRowSpec
	StrayVM     = admin.StrayVM
	AdminRoute  = admin.Route
	DumpState   = admin.DumpState
	DumpCluster = admin.DumpCluster
	DumpMapRow  = admin.DumpMapRow
	DumpVM      = admin.DumpVM
	DumpNode    = admin.DumpNode
	DumpRule    = admin.DumpRule
	DumpNetwork = admin.DumpNetwork
	DumpIP      = admin.DumpIP
	DumpACLItem = admin.DumpACLItem
)

// JobSteps returns the job operations and their step names, for
// FailJobStep.
func JobSteps() map[string][]string { return admin.JobSteps() }

// AdminRoutes lists the admin API, under /admin/, for documentation and the
// cksim admin subcommand.
func AdminRoutes() []AdminRoute { return admin.Routes() }

// DeleteMapRow deletes a VM's kubernetes_cluster_vm_map row, as a database
// edit would.
func (s *Simulator) DeleteMapRow(clusterID, vmID string) error {
	return s.adm.DeleteMapRow(clusterID, vmID)
}

// RestoreMapRow re-inserts a row removed by DeleteMapRow.
func (s *Simulator) RestoreMapRow(clusterID, vmID string) error {
	return s.adm.RestoreMapRow(clusterID, vmID)
}

// InsertMapRow adds a map row for any VM id: an expunged VM, a VM of another
// cluster or an id that never existed.
func (s *Simulator) InsertMapRow(clusterID, vmID string, spec MapRowSpec) error {
	return s.adm.InsertMapRow(clusterID, vmID, spec)
}

// StopKubelet stops a VM's kubelet; the VM keeps running.
func (s *Simulator) StopKubelet(vmID string, keepNode bool) error {
	return s.adm.StopKubelet(vmID, keepNode)
}

// DeleteKubeNode deletes a VM's Node object from its cluster's Kubernetes
// (kubectl delete node).
func (s *Simulator) DeleteKubeNode(vmID string) error { return s.adm.DeleteKubeNode(vmID) }

// StartKubelet starts a VM's kubelet: its node (re)joins Kubernetes.
func (s *Simulator) StartKubelet(vmID string) error { return s.adm.StartKubelet(vmID) }

// RegisterNodeFQDN makes a VM's node register under an FQDN (the guest's
// hostname resolving as <host>.<network domain>).
func (s *Simulator) RegisterNodeFQDN(vmID, fqdn string) error {
	return s.adm.RegisterNodeFQDN(vmID, fqdn)
}

// CreateStrayVM deploys a VM named like a node of the cluster, in the
// cluster's network and account, that is in no VM map.
func (s *Simulator) CreateStrayVM(spec StrayVM) (string, string, error) {
	return s.adm.CreateStrayVM(spec)
}

// SetVMState sets a VM's state (e.g. Stopped, Error, Destroyed) without
// touching anything else.
func (s *Simulator) SetVMState(vmID, state string) error { return s.adm.SetVMState(vmID, state) }

// ExpungeVM destroys and expunges a VM out of band: its own port forwards are
// revoked, its map row (if any) and Kubernetes node object stay.
func (s *Simulator) ExpungeVM(vmID string) error { return s.adm.ExpungeVM(vmID) }

// DeleteRule deletes a firewall, port-forwarding or load balancer rule by id,
// as a user or an operator would outside CKS.
func (s *Simulator) DeleteRule(ruleID string) error { return s.adm.DeleteRule(ruleID) }

// ClusterReachable tells what CloudStack's own checks would find of a
// cluster's paths: SSH through the cluster's address to its first control
// node (which start, scale and upgrade need) and the API on 6443 (which start
// and the state scanner check), network ACLs included.
func (s *Simulator) ClusterReachable(clusterID string) (ssh, api bool, err error) {
	return s.adm.ClusterReachable(clusterID)
}

// DeleteACLItem deletes a network ACL item by id, as a user would outside
// CKS; the tiers that use its list lose what it let in.
func (s *Simulator) DeleteACLItem(itemID string) error { return s.adm.DeleteACLItem(itemID) }

// SetVMOffering puts a VM on another service offering out of band (as an
// operator's scaleVirtualMachine would), without touching the cluster's
// records.
func (s *Simulator) SetVMOffering(vmID, offeringID string) error {
	return s.adm.SetVMOffering(vmID, offeringID)
}

// SetNodeOffering puts every VM of one node type (control, worker or etcd) of
// a cluster on another service offering out of band; the cluster's recorded
// offerings stay.
func (s *Simulator) SetNodeOffering(clusterID, role, offeringID string) error {
	return s.adm.SetNodeOffering(clusterID, role, offeringID)
}

// SetClusterState sets a cluster's state in the database.
func (s *Simulator) SetClusterState(clusterID, state string) error {
	return s.adm.SetClusterState(clusterID, state)
}

// SetClusterNodeCount writes a cluster's node_count (its size) straight into
// the model, as an administrator's "UPDATE kubernetes_cluster SET node_count
// = … WHERE uuid = …" does: no API call can, and nothing else changes until
// the state scanner's next pass.
func (s *Simulator) SetClusterNodeCount(clusterID string, n int64) error {
	return s.adm.SetClusterNodeCount(clusterID, n)
}

// FailNextCalls makes the next n calls of an API command fail with the error
// code (HTTP status) and text.
func (s *Simulator) FailNextCalls(command string, n, code int, text string) {
	s.adm.FailNextCalls(command, n, code, text)
}

// LoseNextResponses makes the answers to the next n calls of an API command
// get lost: the command runs (an async command's job is queued and runs), and
// the client gets a proxy's 504 instead of the answer.
func (s *Simulator) LoseNextResponses(command string, n int) { s.adm.LoseNextResponses(command, n) }

// AfterNextCall runs fn once, after the next call of an API command ran and
// before its answer is sent, outside the simulator's lock.
func (s *Simulator) AfterNextCall(command string, fn func()) { s.adm.AfterNextCall(command, fn) }

// FailJobStep makes the next n jobs of an operation fail at a named step (see
// JobSteps), with the failure the server reports there (state transitions
// included), or with message when it is not empty.
func (s *Simulator) FailJobStep(op, step string, n int, message string) error {
	return s.adm.FailJobStep(op, step, n, message)
}

// SetCommandLatency delays every call of a command ("" or "*" for all
// commands) by d; zero clears it.
func (s *Simulator) SetCommandLatency(command string, d time.Duration) {
	s.adm.SetCommandLatency(command, d)
}

// SetListOrder changes the order every list comes back in
// (Options.ListOrder) from the next call on, so that a test can read one
// model in each order.
func (s *Simulator) SetListOrder(order string) error {
	if err := validListOrder(order); err != nil {
		return err
	}
	s.adm.Lock()
	defer s.adm.Unlock()
	s.adm.Opts.ListOrder = order
	return nil
}

// SetJobDuration sets how long an async job takes (Options.JobDuration), from
// each job's next step on: benchmarks create their clusters fast, then time
// their scales at a uniform job time.
func (s *Simulator) SetJobDuration(d time.Duration) { s.adm.SetJobDuration(d) }

// ClearFaults removes every injected API failure, latency and job failure.
func (s *Simulator) ClearFaults() { s.adm.ClearFaults() }

// SetSSHLatency delays each SSH command's output.
func (s *Simulator) SetSSHLatency(d time.Duration) { s.adm.SetSSHLatency(d) }

// DropNextSSHCommands closes the connection mid-output for the next n SSH
// commands.
func (s *Simulator) DropNextSSHCommands(n int) { s.adm.DropNextSSHCommands(n) }

// FailNextKubeAPI makes the next n Kubernetes API requests answer statusCode.
func (s *Simulator) FailNextKubeAPI(statusCode, n int) { s.adm.FailNextKubeAPI(statusCode, n) }

// SSHSessions counts SSH sessions served by the cluster endpoints.
func (s *Simulator) SSHSessions() int64 { return s.adm.SSHSessions() }

// HostKey is the SSH host key of a cluster's nodes, nil if unknown.
func (s *Simulator) HostKey(clusterID string) ssh.PublicKey { return s.adm.HostKey(clusterID) }

// CallCounts returns the number of API calls per command name.
func (s *Simulator) CallCounts() map[string]int64 { return s.adm.CallCounts() }

// ResetCallCounts sets every API call counter back to zero.
func (s *Simulator) ResetCallCounts() { s.adm.ResetCallCounts() }

// AdvanceClock moves the simulated clock forward (on top of Options.Clock).
func (s *Simulator) AdvanceClock(d time.Duration) { s.adm.AdvanceClock(d) }

// RunScanner runs the cluster state scanner once, now, whatever its timer
// (also when Options.DisableScanner turned the timer off).
func (s *Simulator) RunScanner() { s.adm.RunScanner() }

// SetScannerInterval changes the period of the state scanner's timer: d > 0
// runs it every d (also when Options.DisableScanner turned it off), d <= 0
// stops the timer.
func (s *Simulator) SetScannerInterval(d time.Duration) { s.adm.SetScannerInterval(d) }

// ScannerInterval returns the period of the state scanner's timer, zero when
// it is stopped.
func (s *Simulator) ScannerInterval() time.Duration { return s.adm.ScannerInterval() }

// DockerRegistryPasswordIs reports whether the cluster's stored docker
// registry password equals candidate, so that tests can check it arrived
// without the secret ever leaving the simulator.
func (s *Simulator) DockerRegistryPasswordIs(clusterID, candidate string) bool {
	return s.adm.DockerRegistryPasswordIs(clusterID, candidate)
}

// CreateStrayVMs is CreateStrayVM for many VMs at once, as a benchmark fills
// an account with thousands of VMs of other applications: one lock, one
// update of the endpoints' view, instead of one per VM.
func (s *Simulator) CreateStrayVMs(specs []StrayVM) ([]string, error) {
	return s.adm.CreateStrayVMs(specs)
}

// SetKubeletVersion makes a VM's kubelet report another version, as when an
// operator runs the upgrade script on one node by hand or the node is re-
// joined from another template: its Kubernetes node object reports it
// (status.nodeInfo.kubeletVersion), while the VM's map row keeps what the
// last upgrade wrote, since only the upgrade job updates it
// (KubernetesClusterUtil.clusterNodeVersionMatches).
func (s *Simulator) SetKubeletVersion(vmID, version string) error {
	return s.adm.SetKubeletVersion(vmID, version)
}

// SetISODownload decides how later downloads of url go; it changes no
// download that already started.
func (s *Simulator) SetISODownload(url string, d ISODownload) error {
	return s.adm.SetISODownload(url, d)
}

// Dump returns the model as indented JSON, deterministic for a given state.
func (s *Simulator) Dump() ([]byte, error) { return s.adm.Dump() }

// DumpState returns the model as Go values.
func (s *Simulator) DumpState() DumpState { return s.adm.DumpState() }
