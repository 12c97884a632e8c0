package simulator

import (
	"errors"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// liveIPs returns the guest addresses of the network's non-expunged VMs by
// VM id, failing the test on a duplicate.
func liveIPs(t *testing.T, e *testEnv, networkID string) map[string]string {
	t.Helper()
	byIP := map[string]string{}
	out := map[string]string{}
	for _, v := range e.sim.DumpState().VMs {
		if v.Expunged || v.NetworkID != networkID {
			continue
		}
		if other, dup := byIP[v.IP]; dup {
			t.Fatalf("VMs %s and %s share guest IP %s", other, v.Name, v.IP)
		}
		byIP[v.IP] = v.Name
		out[v.ID] = v.IP
	}
	return out
}

// New refuses a guest CIDR prefix outside 16-29.
func TestGuestCIDRPrefixOutOfRange(t *testing.T) {
	t.Parallel()
	for _, bits := range []int{15, 30, -1} {
		if s, err := New(Options{GuestCIDRPrefix: bits}); err == nil {
			_ = s.Close()
			t.Errorf("GuestCIDRPrefix %d accepted", bits)
		}
	}
}

func TestGuestIPsUniqueAndReusedAfterExpunge(t *testing.T) {
	t.Parallel()
	// A /29 holds five VMs: .2 to .6 (.1 is the gateway, .7 broadcast).
	e := newEnv(t, Options{GuestCIDRPrefix: 29, MaxClusterSize: 20})
	id := e.createCluster(e.createParams("small", 2))
	cl := e.cluster(id)
	if cl.Networkid == "" {
		t.Fatal("cluster without network")
	}
	ips := liveIPs(t, e, cl.Networkid)
	got := slices.Sorted(maps.Values(ips))
	e.sim.rt.Lock()
	guest := netip.MustParsePrefix(e.sim.rt.DB.Network(cl.Networkid).CIDR)
	e.sim.rt.Unlock()
	gateway := guest.Addr().Next()
	want := []string{gateway.Next().String(), gateway.Next().Next().String(), gateway.Next().Next().Next().String()}
	if !slices.Equal(got, want) {
		t.Fatalf("cluster guest IPs %v, want %v", got, want)
	}

	strayID, _, err := e.sim.CreateStrayVM(StrayVM{ClusterID: id, Name: "app-1"})
	if err != nil {
		t.Fatal(err)
	}
	// Expunging a worker frees its address; the next VM takes the lowest
	// free one, which is that address again.
	worker := workerIDs(e, id)[0]
	freed := liveIPs(t, e, cl.Networkid)[worker]
	if err := e.sim.ExpungeVM(worker); err != nil {
		t.Fatal(err)
	}
	reuseID, _, err := e.sim.CreateStrayVM(StrayVM{ClusterID: id, Name: "app-2"})
	if err != nil {
		t.Fatal(err)
	}
	ips = liveIPs(t, e, cl.Networkid)
	if ips[reuseID] != freed {
		t.Fatalf("new VM got %s, want the expunged worker's %s", ips[reuseID], freed)
	}
	if ips[strayID] == freed {
		t.Fatalf("live VM %s lost its address", strayID)
	}

	// Fill the network, then one more VM finds no address.
	if _, _, err := e.sim.CreateStrayVM(StrayVM{ClusterID: id, Name: "app-3"}); err != nil {
		t.Fatal(err)
	}
	_, _, err = e.sim.CreateStrayVM(StrayVM{ClusterID: id, Name: "app-4"})
	var aerr *wire.APIError
	if !errors.As(err, &aerr) || aerr.Code != wire.CodeCapacity || aerr.CSCode != wire.CSInsufficientAddr {
		t.Fatalf("VM on a full network: %v, want a 533 capacity error", err)
	}
	if n := len(liveIPs(t, e, cl.Networkid)); n != 5 {
		t.Fatalf("%d live VMs on the /29, want 5", n)
	}
}

// workerIDs returns the ids of the cluster's worker VMs.
func workerIDs(e *testEnv, id string) []string {
	var out []string
	for _, v := range e.cluster(id).Virtualmachines {
		if strings.Contains(v.Name, "-node-") {
			out = append(out, v.Id)
		}
	}
	return out
}

func TestFullNetworkFailsCreateAndScaleUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{GuestCIDRPrefix: 29, MaxClusterSize: 20})

	// Six VMs do not fit in five addresses: the create job fails (530, as
	// CKS wraps the capacity exception) naming it, the cluster is in Error
	// and the five VMs deployed stay (no rollback).
	r, err := e.cs.Kubernetes.CreateKubernetesCluster(e.createParams("toobig", 5))
	if err != nil {
		t.Fatal(err)
	}
	code, text := e.mustFail(r.JobID)
	if code != wire.CodeInternalError || !strings.Contains(text, "Unable to acquire Guest IP address") ||
		!strings.HasPrefix(text, "Failed to setup Kubernetes cluster : toobig") {
		t.Fatalf("create on a full network: %d %q", code, text)
	}
	cl := e.cluster(r.Id)
	if cl.State != model.ClusterError || len(cl.Virtualmachines) != 5 {
		t.Fatalf("failed create: state %s, %d VMs", cl.State, len(cl.Virtualmachines))
	}
	liveIPs(t, e, cl.Networkid)

	// Scale-up from 3 to 5 workers has room for one: Alert, node_count
	// stays 3, the added worker stays.
	id := e.createCluster(e.createParams("grows", 3))
	code, text = e.mustFail(e.scale(id, 5))
	if code != wire.CodeInternalError || !strings.Contains(text, "Scaling failed for Kubernetes cluster") {
		t.Fatalf("scale-up on a full network: %d %q", code, text)
	}
	cl = e.cluster(id)
	if cl.State != model.ClusterAlert || cl.Size != 3 || len(workerIDs(e, id)) != 4 {
		t.Fatalf("after failed scale-up: state %s size %d workers %d", cl.State, cl.Size, len(workerIDs(e, id)))
	}
	liveIPs(t, e, cl.Networkid)
}
