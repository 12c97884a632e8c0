package driftcheck

import (
	"maps"
	"sync"
	"time"
)

// NodeCheck says how the Kubernetes nodes of a cluster were listed.
type NodeCheck struct {
	// Source is the node source used; NodeSourceNone when the cluster was
	// skipped.
	Source NodeSource
	// Address is the SSH host:port or the Kubernetes API server.
	Address string
	// Err is why listing the nodes failed; the VM comparison still ran.
	// With SSH, a refused host key is a *sshlister.HostKeyError.
	Err error
}

// Stats is what a check cost and how it reached the nodes.
type Stats struct {
	// CloudStackCalls counts CloudStack API calls by command. A list call
	// counts once however many pages it fetched.
	CloudStackCalls map[string]int
	// SSHSessions counts node listings over SSH; each opens one session.
	SSHSessions int
	// KubeAPIListings counts node listings through the Kubernetes API.
	KubeAPIListings int
	// ClusterName is the name of the cluster a single-cluster check found.
	ClusterName string
	// Node is how the nodes of a single-cluster check were listed.
	Node NodeCheck
	// Elapsed is the wall time of the check.
	Elapsed time.Duration
}

// CloudStackRequests is the total number of CloudStack API calls.
func (s Stats) CloudStackRequests() int {
	n := 0
	for _, c := range s.CloudStackCalls {
		n += c
	}
	return n
}

// meter counts the calls of one check or fleet; safe for concurrent use.
type meter struct {
	mu    sync.Mutex
	calls map[string]int
	ssh   int
	kube  int
}

func newMeter() *meter { return &meter{calls: map[string]int{}} }

func (m *meter) call(command string) {
	m.mu.Lock()
	m.calls[command]++
	m.mu.Unlock()
}

func (m *meter) listing(source NodeSource) {
	m.mu.Lock()
	switch source {
	case NodeSourceSSH:
		m.ssh++
	case NodeSourceKubeconfig:
		m.kube++
	}
	m.mu.Unlock()
}

func (m *meter) stats(start time.Time) Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Stats{CloudStackCalls: maps.Clone(m.calls), SSHSessions: m.ssh, KubeAPIListings: m.kube, Elapsed: time.Since(start)}
}
