package simtest

import (
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

func TestClusterThroughThePlainAPI(t *testing.T) {
	t.Parallel()
	e := Start(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "kit", Size: 2})
	if cl.State != "Running" || cl.Size != 2 || cl.ControlNodes != 1 || cl.Keypair != e.Info.Keypair {
		t.Fatalf("cluster %+v, want Running with 1 control node, 2 workers and the seeded key pair", cl)
	}

	port := map[string]int{}
	for _, pf := range e.Forwards(cl) {
		port[pf.VirtualMachineID] = pf.PublicPort
	}
	if first, second := e.NthWorker(cl, 0), e.NthWorker(cl, 1); port[first.ID] != 2223 || port[second.ID] != 2224 {
		t.Fatalf("workers by SSH port: %s on %d, %s on %d; want 2223 and 2224", first.Name, port[first.ID], second.Name, port[second.ID])
	}

	out, status, err := e.RunSSH(net.JoinHostPort(cl.IPAddress, "2222"), e.HostKey(cl.ID), "sudo /opt/bin/kubectl get nodes -o name")
	if err != nil || status != 0 || len(strings.Fields(out)) != 3 {
		t.Fatalf("kubectl over SSH = %q, status %d, %v; want 3 nodes", out, status, err)
	}

	if err := e.Scale(cl.ID, 1); err != nil {
		t.Fatalf("Scale: %v", err)
	}
	if got := e.Cluster(cl.ID); got.Size != 1 || got.State != "Running" {
		t.Fatalf("after the scale: %s with size %d", got.State, got.Size)
	}

	e.DeleteForward(cl, 2222)
	for _, pf := range e.ForwardsOn(cl.IPAddressID) {
		if pf.PublicPort == 2222 {
			t.Fatalf("forward 2222 is still there: %+v", pf)
		}
	}
}

func TestProjectClusterIsFound(t *testing.T) {
	t.Parallel()
	e := Start(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "in-project", Ownership: cloudstack.Ownership{ProjectID: e.Info.ProjectID}})
	if cl.ProjectID != e.Info.ProjectID {
		t.Fatalf("cluster %+v, want it in project %s", cl, e.Info.ProjectID)
	}
}

func TestStartWritesTheKeyFile(t *testing.T) {
	t.Parallel()
	e := Start(t, WithProfile("4.22.0.0"))
	st, err := os.Stat(e.KeyFile)
	if err != nil || st.Mode().Perm() != 0o600 || e.Info.PrivateKeyFile != e.KeyFile || e.Sim.Info().PrivateKeyFile != e.KeyFile {
		t.Fatalf("key file %q: %v %v; info %q", e.KeyFile, st, err, e.Info.PrivateKeyFile)
	}
	if e.Info.CloudStackVersion != "4.22.0.0" {
		t.Fatalf("profile: CloudStack version %q", e.Info.CloudStackVersion)
	}
}

func TestWithoutRetriesSeesEveryFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		opts   []Option
		failed bool
	}{{"retries", nil, false}, {"without retries", []Option{WithoutRetries()}, true}} {
		e := Start(t, tc.opts...)
		e.Sim.FailNextCalls("listZones", 1, 503, "Service Unavailable")
		_, err := e.API.ListZones(t.Context())
		if (err != nil) != tc.failed {
			t.Errorf("%s: ListZones after one 503 = %v, want failed %v", tc.name, err, tc.failed)
		}
	}
}

func TestLaunchWithoutATest(t *testing.T) {
	t.Parallel()
	if _, err := Launch(WithTLS()); err == nil || !strings.Contains(err.Error(), "needs Start") {
		t.Fatalf("Launch(WithTLS()) = %v, want a refusal", err)
	}
	e, err := Launch(WithListOrder("reversed"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	id, err := e.CreateCluster(t.Context(), cloudstack.CreateClusterParams{Name: "launched"})
	if err != nil || id == "" || e.KeyFile != "" {
		t.Fatalf("CreateCluster = %q, %v; key file %q", id, err, e.KeyFile)
	}
	if i := slices.IndexFunc(e.Sim.DumpState().Clusters, func(c simulator.DumpCluster) bool { return c.ID == id }); i < 0 {
		t.Fatalf("the simulator has no cluster %s", id)
	}
}

func TestScannerRunsOnlyWhenTheTestSaysSo(t *testing.T) {
	t.Parallel()
	if d := Start(t).Sim.ScannerInterval(); d != 0 {
		t.Fatalf("Start: scanner timer every %v, want it off", d)
	}

	e := Start(t, WithScannerTimer(20*time.Millisecond))
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "timed"})
	if err := e.Sim.SetClusterState(cl.ID, "Alert"); err != nil {
		t.Fatal(err)
	}
	// A healthy cluster in Alert goes back to Running on the timer's next
	// pass; nothing but the timer runs the scanner here.
	deadline := time.Now().Add(10 * time.Second)
	for e.Cluster(cl.ID).State != "Running" {
		if time.Now().After(deadline) {
			t.Fatalf("the cluster is still %s: the scanner's timer did not run", e.Cluster(cl.ID).State)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
