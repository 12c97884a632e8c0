package admin

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/cluster"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// Out-of-band changes and fault injection: what an operator (or a failing
// system) does to a CloudStack installation behind the API's back. Each
// method has an admin HTTP route and a cksim subcommand (see admin_http.go).

// jobSteps names the checkpoints of each job operation where FailJobStep
// can inject a failure, in the order the job passes them.
var jobSteps = map[string][]string{
	"create": {"network", "etcd-vms", "control-vms", "worker-vms", "network-rules", "etcd-rules", "api",
		"nodes-ready", "kubeconfig", "dashboard"},
	"scale-up":          {"vms", "network-rules", "nodes-ready"},
	"scale-down":        {"remove-vm", "vm-removed", "network-rules"},
	"scale-offering":    {"vms"},
	"scale-autoscaling": {"autoscaler"},
	"upgrade":           {"node"},
	"start":             {"vms", "api", "kubeconfig"},
	"stop":              {"vms"},
	"delete":            {"vms", "network", "forwards", "release-ip"},
	"add-nodes":         {"node", "node-check"},
	"remove-nodes":      {"node"},
	"rule":              {"apply"},
}

// JobSteps returns the job operations and their step names, for
// FailJobStep. scale-down passes remove-vm and vm-removed once per removed
// VM; upgrade passes node once per upgraded node.
func JobSteps() map[string][]string {
	out := make(map[string][]string, len(jobSteps))
	for op, steps := range jobSteps {
		out[op] = slices.Clone(steps)
	}
	return out
}

// MapRowSpec describes an inserted VM map row.
type MapRowSpec struct {
	Control     bool   `json:"control"`
	Etcd        bool   `json:"etcd"`
	External    bool   `json:"external"`
	NodeVersion string `json:"node_version"`
	// ManualUpgrade is the row's manual_upgrade column; etcd rows have it
	// whatever this says, as CKS writes them.
	ManualUpgrade bool `json:"manual_upgrade"`
}

// StrayVM describes a VM created out of band, named like a node of a
// cluster but not in its VM map.
type StrayVM struct {
	ClusterID string `json:"cluster_id"`
	// Role is control, worker (default) or etcd; it picks the name pattern.
	Role string `json:"role"`
	// Name overrides the generated name.
	Name string `json:"name"`
	// Created is the VM's creation time; zero means now. The name's hex
	// suffix is taken from it.
	Created time.Time `json:"created"`
	// State defaults to Running.
	State string `json:"state"`
	// Join registers the VM as a Kubernetes node of the cluster.
	Join bool `json:"join"`
}

// ErrNotFound wraps lookups of admin operations.
var ErrNotFound = errors.New("not found")

func (s *Admin) adminCluster(id string) (*model.Cluster, error) {
	c := s.DB.Cluster(id)
	if c == nil || c.Removed {
		return nil, fmt.Errorf("cluster %s: %w", id, ErrNotFound)
	}
	return c, nil
}

// changeVM applies change to a VM that has not been expunged, under the lock.
func (s *Admin) changeVM(id string, change func(v *model.VM)) error {
	s.Lock()
	defer s.Unlock()
	v := s.DB.VM(id)
	if v == nil {
		return fmt.Errorf("VM %s: %w", id, ErrNotFound)
	}
	change(v)
	return nil
}

// DeleteMapRow deletes a VM's kubernetes_cluster_vm_map row, as a database
// edit would. RestoreMapRow puts it back with the same id and values.
func (s *Admin) DeleteMapRow(clusterID, vmID string) error {
	s.Lock()
	defer s.Unlock()
	for _, row := range s.DB.MapRows(clusterID) {
		if strings.EqualFold(row.VMID, vmID) {
			s.Workers.DeleteMapRow(row)
			s.DB.MapTrash = append(s.DB.MapTrash, row)
			return nil
		}
	}
	return fmt.Errorf("map row of VM %s in cluster %s: %w", vmID, clusterID, ErrNotFound)
}

// RestoreMapRow re-inserts a row removed by DeleteMapRow.
func (s *Admin) RestoreMapRow(clusterID, vmID string) error {
	s.Lock()
	defer s.Unlock()
	for i, row := range s.DB.MapTrash {
		if row.ClusterID == clusterID && strings.EqualFold(row.VMID, vmID) {
			s.DB.MapTrash = slices.Delete(s.DB.MapTrash, i, i+1)
			s.DB.VMMap = append(s.DB.VMMap, row)
			slices.SortFunc(s.DB.VMMap, func(a, b *model.MapRow) int { return int(a.InternalID - b.InternalID) })
			return nil
		}
	}
	return fmt.Errorf("deleted map row of VM %s in cluster %s: %w", vmID, clusterID, ErrNotFound)
}

// InsertMapRow adds a map row for any VM id: an expunged VM, a VM of
// another cluster or an id that never existed.
func (s *Admin) InsertMapRow(clusterID, vmID string, spec MapRowSpec) error {
	s.Lock()
	defer s.Unlock()
	c, err := s.adminCluster(clusterID)
	if err != nil {
		return err
	}
	version := spec.NodeVersion
	if version == "" && !spec.Etcd {
		version = s.VersionSemverOf(c)
	}
	s.DB.VMMap = append(s.DB.VMMap, &model.MapRow{InternalID: s.DB.NextID("vmmap"), ClusterID: c.ID, VMID: vmID,
		Control: spec.Control, Etcd: spec.Etcd, External: spec.External, ManualUpgrade: spec.ManualUpgrade || spec.Etcd,
		NodeVersion: version})
	return nil
}

// StopKubelet stops a VM's kubelet; the VM keeps running. Its Node object
// stays registered and turns NotReady (status Unknown), as a real node does:
// it goes away only when something deletes it (DeleteKubeNode, or the drain
// of a scale-down). keepNode is ignored; it is kept for compatibility (false
// used to delete the node as well).
func (s *Admin) StopKubelet(vmID string, keepNode bool) error {
	_ = keepNode
	return s.changeVM(vmID, func(v *model.VM) { v.Kubelet = false })
}

// DeleteKubeNode deletes a VM's Node object from its cluster's Kubernetes
// (kubectl delete node). A running kubelet registers it again on StartKubelet.
func (s *Admin) DeleteKubeNode(vmID string) error {
	return s.changeVM(vmID, func(v *model.VM) { s.DeleteNode(v.ID) })
}

// StartKubelet starts a VM's kubelet: its node (re)joins Kubernetes.
func (s *Admin) StartKubelet(vmID string) error {
	return s.changeVM(vmID, func(v *model.VM) {
		v.Kubelet = true
		s.JoinNode(v)
	})
}

// RegisterNodeFQDN makes a VM's node register under an FQDN (the guest's
// hostname resolving as <host>.<network domain>). An empty fqdn uses
// <lowercased VM name>.cs<account id>cloud.internal.
func (s *Admin) RegisterNodeFQDN(vmID, fqdn string) error {
	return s.changeVM(vmID, func(v *model.VM) {
		if fqdn == "" {
			var acct int64
			if a := s.DB.Account(v.AccountID); a != nil {
				acct = a.InternalID
			}
			fqdn = fmt.Sprintf("%s.cs%dcloud.internal", strings.ToLower(v.Name), acct)
		}
		v.NodeName = strings.ToLower(fqdn)
		if n := s.DB.NodeOfVM(v.ID); n != nil {
			n.Name = v.NodeName
		} else if v.Kubelet {
			s.JoinNode(v)
		}
	})
}

// CreateStrayVM deploys a VM named like a node of the cluster, in the
// cluster's network and account, that is in no VM map. It returns the VM id
// and name.
func (s *Admin) CreateStrayVM(spec StrayVM) (string, string, error) {
	s.Lock()
	defer s.Unlock()
	return s.createStrayVM(spec)
}

// createStrayVM is CreateStrayVM for callers that hold the lock.
func (s *Admin) createStrayVM(spec StrayVM) (string, string, error) {
	c, err := s.adminCluster(spec.ClusterID)
	if err != nil {
		return "", "", err
	}
	n := s.DB.Network(c.NetworkID)
	if n == nil {
		return "", "", fmt.Errorf("network of cluster %s: %w", c.Name, ErrNotFound)
	}
	created := spec.Created
	if created.IsZero() {
		created = s.Now()
	}
	role := model.NodeRole(spec.Role)
	if role == model.RoleNone {
		role = model.RoleWorker
	}
	name := spec.Name
	if name == "" {
		ms := created.UnixMilli()
		switch role {
		case model.RoleControl:
			name = model.ControlNodeName(model.ClusterNodePrefix(c.Name, c.ID), ms)
		case model.RoleEtcd:
			name = model.EtcdNodeName(model.EtcdNodePrefix(c.Name, c.ID), 1, ms)
		case model.RoleWorker:
			name = model.WorkerNodeName(model.ClusterNodePrefix(c.Name, c.ID), ms)
		default:
			return "", "", fmt.Errorf("unknown role %q (want control, worker or etcd)", spec.Role)
		}
	}
	off := c.NodeOfferingID(model.RoleWorker)
	v, aerr := s.CreateNodeVM(c, model.RoleNone, name, off, n)
	if aerr != nil {
		return "", "", fmt.Errorf("deploy VM %s: %w", name, aerr)
	}
	v.Role = role
	v.UserVM = true
	v.Created, v.LastUpdated = created.UTC(), created.UTC()
	if spec.State != "" {
		v.State = spec.State
	}
	if spec.Join && role != model.RoleEtcd {
		v.Kubelet = true
		s.JoinNode(v)
	}
	return v.ID, v.Name, nil
}

// SetVMState sets a VM's state (e.g. Stopped, Error, Destroyed) without
// touching anything else.
func (s *Admin) SetVMState(vmID, state string) error {
	valid := []string{model.VMStarting, model.VMRunning, "Stopping", model.VMStopped, model.VMDestroyed, model.VMExpunging, "Migrating",
		"Error", "Unknown", "Shutdown", "Restoring"}
	if !slices.Contains(valid, state) {
		return fmt.Errorf("unknown VM state %q", state)
	}
	return s.changeVM(vmID, func(v *model.VM) { s.Workers.SetVMState(v, state) })
}

// ExpungeVM destroys and expunges a VM out of band: its own port forwards
// are revoked, its map row (if any) and Kubernetes node object stay.
func (s *Admin) ExpungeVM(vmID string) error {
	return s.changeVM(vmID, s.Workers.ExpungeVM)
}

// DeleteRule deletes a firewall, port-forwarding or load balancer rule by
// id, as a user or an operator would outside CKS.
func (s *Admin) DeleteRule(ruleID string) error {
	s.Lock()
	defer s.Unlock()
	r := s.DB.Rule(ruleID)
	if r == nil {
		return fmt.Errorf("rule %s: %w", ruleID, ErrNotFound)
	}
	s.RevokeRule(r)
	return nil
}

// ClusterReachable tells what CloudStack's own checks would find of a
// cluster's paths: SSH through the cluster's address to its first control
// node (which start, scale and upgrade need) and the API on 6443 (which
// start and the state scanner check), network ACLs included.
func (s *Admin) ClusterReachable(clusterID string) (ssh, api bool, err error) {
	s.Lock()
	defer s.Unlock()
	c, err := s.adminCluster(clusterID)
	if err != nil {
		return false, false, err
	}
	return s.ControlSSHReachable(c), s.APIReachable(c), nil
}

// DeleteACLItem deletes a network ACL item by id, as a user would outside
// CKS; the tiers that use its list lose what it let in.
func (s *Admin) DeleteACLItem(itemID string) error {
	s.Lock()
	defer s.Unlock()
	it := s.DB.ACLItem(itemID)
	if it == nil {
		return fmt.Errorf("network ACL item %s: %w", itemID, ErrNotFound)
	}
	s.RevokeACLItem(it)
	return nil
}

// SetVMOffering puts a VM on another service offering out of band (as an
// operator's scaleVirtualMachine would), without touching the cluster's
// records.
func (s *Admin) SetVMOffering(vmID, offeringID string) error {
	s.Lock()
	defer s.Unlock()
	off := s.DB.Offering(offeringID)
	if off == nil {
		return fmt.Errorf("service offering %s: %w", offeringID, ErrNotFound)
	}
	v := s.DB.VM(vmID)
	if v == nil {
		return fmt.Errorf("VM %s: %w", vmID, ErrNotFound)
	}
	v.OfferingID = off.ID
	return nil
}

// SetNodeOffering puts every VM of one node type (control, worker or etcd)
// of a cluster on another service offering out of band; the cluster's
// recorded offerings stay. A size-only scale then finds that node type's
// first VM on an offering other than the cluster's service offering and
// tries to change it (KubernetesClusterScaleWorker.scaleCluster).
func (s *Admin) SetNodeOffering(clusterID, role, offeringID string) error {
	s.Lock()
	defer s.Unlock()
	c, err := s.adminCluster(clusterID)
	if err != nil {
		return err
	}
	r := model.NodeRole(strings.ToLower(role))
	if r != model.RoleControl && r != model.RoleWorker && r != model.RoleEtcd {
		return fmt.Errorf("unknown node type %q (want control, worker or etcd)", role)
	}
	off := s.DB.Offering(offeringID)
	if off == nil {
		return fmt.Errorf("service offering %s: %w", offeringID, ErrNotFound)
	}
	for _, row := range s.DB.MapRows(c.ID) {
		if v := s.DB.VM(row.VMID); v != nil && model.RowRole(row) == r {
			v.OfferingID = off.ID
		}
	}
	return nil
}

// SetClusterState sets a cluster's state in the database.
func (s *Admin) SetClusterState(clusterID, state string) error {
	if !cluster.IsKnownClusterState(state) {
		return fmt.Errorf("unknown cluster state %q", state)
	}
	s.Lock()
	defer s.Unlock()
	c, err := s.adminCluster(clusterID)
	if err != nil {
		return err
	}
	s.Workers.SetClusterState(c, state)
	return nil
}

// SetClusterNodeCount writes a cluster's node_count (its size) straight
// into the model, as an administrator's
// "UPDATE kubernetes_cluster SET node_count = … WHERE uuid = …" does: no
// API call can, and nothing else changes until the state scanner's next
// pass.
func (s *Admin) SetClusterNodeCount(clusterID string, n int64) error {
	if n < 0 {
		return fmt.Errorf("node_count must not be negative, got %d", n)
	}
	s.Lock()
	defer s.Unlock()
	c, err := s.adminCluster(clusterID)
	if err != nil {
		return err
	}
	c.Size = n
	s.RecalculateCapacity(c)
	return nil
}

// FailNextCalls makes the next n calls of an API command fail with the
// error code (HTTP status) and text. n <= 0 clears it.
func (s *Admin) FailNextCalls(command string, n, code int, text string) {
	if code == 0 {
		code = wire.CodeInternalError
	}
	if text == "" {
		text = "Injected failure of " + command
	}
	s.Faults.SetAPIFailure(command, n, code, text)
}

// LoseNextResponses makes the answers to the next n calls of an API
// command get lost: the command runs (an async command's job is queued and
// runs), and the client gets a proxy's 504 instead of the answer. n <= 0
// clears it.
func (s *Admin) LoseNextResponses(command string, n int) {
	s.Faults.SetLostResponses(command, n)
}

// AfterNextCall runs fn once, after the next call of an API command ran and
// before its answer is sent, outside the simulator's lock: another
// client's change that lands between that answer and the caller's next
// call. fn must not call testing.T's Fatal (it runs on the server's
// goroutine).
func (s *Admin) AfterNextCall(command string, fn func()) {
	s.Faults.SetAfterCall(command, fn)
}

// FailJobStep makes the next n jobs of an operation fail at a named step
// (see JobSteps), with the failure the server reports there (state
// transitions included), or with message when it is not empty.
func (s *Admin) FailJobStep(op, step string, n int, message string) error {
	steps, ok := jobSteps[op]
	if !ok {
		return fmt.Errorf("unknown job operation %q (known: %s)", op, strings.Join(slices.Sorted(maps.Keys(jobSteps)), ", "))
	}
	if !slices.Contains(steps, step) {
		return fmt.Errorf("unknown step %q of %s (known: %s)", step, op, strings.Join(steps, ", "))
	}
	s.Faults.AddJobFailure(op, step, n, message)
	return nil
}

// SetCommandLatency delays every call of a command ("" or "*" for all
// commands) by d; zero clears it.
func (s *Admin) SetCommandLatency(command string, d time.Duration) {
	s.Faults.SetLatency(command, d)
}

// SetJobDuration sets how long an async job takes (Options.JobDuration),
// from each job's next step on: benchmarks create their clusters fast, then
// time their scales at a uniform job time.
func (s *Admin) SetJobDuration(d time.Duration) {
	s.Lock()
	defer s.Unlock()
	s.Opts.JobDuration = max(d, 0)
}

// ClearFaults removes every injected API failure, latency and job failure.
func (s *Admin) ClearFaults() { s.Faults.Clear() }

// SetSSHLatency delays each SSH command's output.
func (s *Admin) SetSSHLatency(d time.Duration) { s.EP.SetSSHLatency(d) }

// DropNextSSHCommands closes the connection mid-output for the next n SSH
// commands.
func (s *Admin) DropNextSSHCommands(n int) { s.EP.DropNextSSHCommands(n) }

// FailNextKubeAPI makes the next n Kubernetes API requests answer
// statusCode.
func (s *Admin) FailNextKubeAPI(statusCode, n int) { s.EP.FailNextKubeAPI(statusCode, n) }

// SSHSessions counts SSH sessions served by the cluster endpoints.
func (s *Admin) SSHSessions() int64 { return s.EP.SSHSessions() }

// HostKey is the SSH host key of a cluster's nodes, nil if unknown.
func (s *Admin) HostKey(clusterID string) ssh.PublicKey { return s.EP.HostKey(clusterID) }

// CallCounts returns the number of API calls per command name.
func (s *Admin) CallCounts() map[string]int64 { return s.Counters.Snapshot() }

// ResetCallCounts sets every API call counter back to zero.
func (s *Admin) ResetCallCounts() { s.Counters.Reset() }

// RunScanner runs the cluster state scanner once, now, whatever its timer
// (also when Options.DisableScanner turned the timer off).
func (s *Admin) RunScanner() {
	s.Lock()
	defer s.Unlock()
	s.Scan()
}

// DockerRegistryPasswordIs reports whether the cluster's stored docker
// registry password equals candidate, so that tests can check it arrived
// without the secret ever leaving the simulator.
func (s *Admin) DockerRegistryPasswordIs(clusterID, candidate string) bool {
	s.Lock()
	defer s.Unlock()
	for _, c := range s.DB.Clusters {
		if c.ID == clusterID {
			return c.DockerPassword != "" && c.DockerPassword == candidate
		}
	}
	return false
}
