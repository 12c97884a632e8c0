package driftcheck

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
)

// simEnv is an in-process simulator and a client for its admin account,
// which tries every call once so that a check sees each injected failure.
type simEnv struct{ *simtest.Env }

// clusterAge is how long before the test the simulated clusters were
// created: well past the 15-minute grace period, like the clusters of a
// drift check that runs long after the last change.
const clusterAge = 40 * time.Minute

func newSimEnv(t *testing.T, opts ...simtest.Option) *simEnv {
	t.Helper()
	opts = append([]simtest.Option{simtest.WithClusterAge(clusterAge), simtest.WithoutRetries()}, opts...)
	return &simEnv{Env: simtest.Start(t, opts...)}
}

// checker is a Checker on the simulator.
func (e *simEnv) checker() *Checker { return &Checker{API: e.API} }

// sshOptions reach the cluster's control node with the seeded key pair and
// its pinned host key.
func (e *simEnv) sshOptions(clusterID string) sshlister.Config {
	e.T().Helper()
	return sshlister.Config{PrivateKey: e.Sim.PrivateKeyPEM(), HostKey: string(ssh.MarshalAuthorizedKey(e.HostKey(clusterID)))}
}

// sshRequest is a full check of the cluster over SSH with rules.
func (e *simEnv) sshRequest(clusterID string) Request {
	return Request{ClusterID: clusterID, Options: Options{NodeSource: NodeSourceSSH, SSH: e.sshOptions(clusterID),
		GracePeriod: drift.DefaultGracePeriod, CheckNetworkRules: true, NodeTimeout: 10 * time.Second}}
}

func (e *simEnv) mustCheck(req Request) (drift.Result, Stats) {
	e.T().Helper()
	res, st, err := e.checker().Check(context.Background(), req)
	if err != nil {
		e.T().Fatalf("Check: %v", err)
	}
	return res, st
}

func findingKinds(r drift.Result) []string {
	out := make([]string, 0, len(r.Findings))
	for _, f := range r.Findings {
		out = append(out, f.Kind)
	}
	return out
}

func assertKinds(t *testing.T, r drift.Result, want ...string) {
	t.Helper()
	testutil.AssertKinds(t, findingKinds(r), r.InSync, describe(r), want...)
}

func describe(r drift.Result) string {
	var b strings.Builder
	b.WriteString(r.Summary)
	for _, f := range r.Findings {
		b.WriteString("\n  " + f.Kind + ": " + f.Message)
	}
	return b.String()
}
