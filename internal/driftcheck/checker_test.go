package driftcheck

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

func TestCheckCleanClusterCostsFiveRequestsAndOneSession(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "clean", Size: 2})
	e.Sim.RunScanner()
	e.Sim.ResetCallCounts()
	sessions := e.Sim.SSHSessions()

	res, st := e.mustCheck(e.sshRequest(cl.ID))

	assertKinds(t, res)
	if !res.NodesChecked || res.NodeCheckError != "" || res.Skipped || res.ClusterState != "Running" {
		t.Fatalf("result %+v", res)
	}
	wantCalls := map[string]int{"listKubernetesClusters": 1, "listVirtualMachines": 1, "listFirewallRules": 1, "listPortForwardingRules": 1, "listLoadBalancerRules": 1}
	if !maps.Equal(st.CloudStackCalls, wantCalls) || st.CloudStackRequests() != 5 {
		t.Fatalf("calls %v, want %v", st.CloudStackCalls, wantCalls)
	}
	// The simulator counts what arrived on the wire, pages included.
	got := e.Sim.CallCounts()
	total := int64(0)
	for _, n := range got {
		total += n
	}
	if total > 5 {
		t.Fatalf("the simulator served %d requests (%v), want at most 5", total, got)
	}
	if n := e.Sim.SSHSessions() - sessions; n != 1 || st.SSHSessions != 1 {
		t.Fatalf("SSH sessions: simulator %d, stats %d, want 1", n, st.SSHSessions)
	}
	if want := cl.IPAddress + ":2222"; st.Node.Address != want || st.Node.Source != NodeSourceSSH {
		t.Fatalf("node check %+v, want ssh to %s", st.Node, want)
	}
}

func TestCheckSkipsTransitionalClusterWithoutFetching(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "busy", Size: 1})
	for _, state := range []string{"Scaling", "Upgrading", "Stopping", "Starting", "Destroying"} {
		if err := e.Sim.SetClusterState(cl.ID, state); err != nil {
			t.Fatal(err)
		}
		sessions := e.Sim.SSHSessions()
		res, st := e.mustCheck(e.sshRequest(cl.ID))
		if !res.Skipped || res.ClusterState != state || res.InSync || len(res.Findings) != 0 {
			t.Fatalf("%s: result %+v", state, res)
		}
		if st.CloudStackRequests() != 1 || st.CloudStackCalls["listKubernetesClusters"] != 1 || e.Sim.SSHSessions() != sessions {
			t.Fatalf("%s: a skipped cluster fetched more than the lookup: %v, %d SSH sessions", state, st.CloudStackCalls, e.Sim.SSHSessions()-sessions)
		}
	}
}

func TestCheckNodeFailureStillComparesVMs(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "nossh", Size: 2})
	worker := e.NthWorker(cl, 1)
	if err := e.Sim.DeleteMapRow(cl.ID, worker.ID); err != nil {
		t.Fatal(err)
	}
	// Break SSH to the control node: delete the forward of public port 2222.
	e.DeleteForward(cl, 2222)

	res, st := e.mustCheck(e.sshRequest(cl.ID))

	if res.NodesChecked || res.NodeCheckError == "" || st.Node.Err == nil {
		t.Fatalf("nodes checked %v, error %q", res.NodesChecked, res.NodeCheckError)
	}
	// Without the row, the worker's forward 2224 is no longer CKS's: the
	// range is one too long and the next scale would delete that forward.
	assertKinds(t, res, drift.KindUnmappedVM, drift.KindVMMapInconsistent, drift.KindSSHForwardMissing,
		drift.KindSSHFirewallRangeMismatch, drift.KindScaleHazard)
	if res.Findings[0].VMID != worker.ID {
		t.Fatalf("unmapped finding %+v, want VM %s", res.Findings[0], worker.ID)
	}
}

func TestCheckRefusesWrongHostKey(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "hostkey", Size: 1})
	other := e.NewCluster(cloudstack.CreateClusterParams{Name: "other", Size: 1})
	req := e.sshRequest(cl.ID)
	req.SSH.HostKey = e.sshOptions(other.ID).HostKey

	res, st := e.mustCheck(req)

	var hostKeyErr *sshlister.HostKeyError
	if !errors.As(st.Node.Err, &hostKeyErr) {
		t.Fatalf("node error %v, want a host key error", st.Node.Err)
	}
	// The VM comparison still runs and finds nothing, but a check without
	// its nodes is incomplete, never in sync.
	if res.NodesChecked || res.NodeCheckError == "" || res.InSync || len(res.Findings) != 0 ||
		len(res.Incomplete) != 1 || res.Incomplete[0].View != drift.ViewNodes {
		t.Fatalf("result %+v: the VM comparison should run and the nodes view be incomplete", res)
	}
}

func TestCheckKubeconfigListsNodesThroughTheKubernetesAPI(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "kube", Size: 2})
	worker := e.NthWorker(cl, 0)
	if err := e.Sim.StopKubelet(worker.ID, true); err != nil {
		t.Fatal(err)
	}
	sessions := e.Sim.SSHSessions()

	res, st := e.mustCheck(Request{ClusterID: cl.ID, Options: Options{NodeSource: NodeSourceKubeconfig,
		GracePeriod: drift.DefaultGracePeriod, CheckNetworkRules: true}})

	assertKinds(t, res, drift.KindNodeNotReady)
	if !res.NodesChecked || st.KubeAPIListings != 1 || st.SSHSessions != 0 || e.Sim.SSHSessions() != sessions {
		t.Fatalf("result %+v stats %+v", res, st)
	}
	if st.CloudStackCalls["getKubernetesClusterConfig"] != 1 || st.Node.Address != "https://"+cl.IPAddress+":6443" {
		t.Fatalf("stats %+v", st)
	}
}

func TestCheckUnknownClusterIsNotFound(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	_, _, err := e.checker().Check(context.Background(), Request{ClusterID: "5b9e4f6e-0000-4000-8000-000000000000",
		Options: Options{NodeSource: NodeSourceNone}})
	if err == nil {
		t.Fatal("no error for an unknown cluster")
	}
}
