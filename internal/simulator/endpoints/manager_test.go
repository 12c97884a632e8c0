package endpoints

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestCloseLeavesNothingListening(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	client := c.client(t, controlPort) // an open connection must not hold Close up
	if res := run(t, client, "sudo /opt/bin/kubectl get nodes -o name"); res.status != 0 {
		t.Fatalf("exec before Close: %+v", res)
	}
	addrs := []string{c.addr(controlPort), c.addr(workerPort), c.addr(6443)}
	for _, addr := range addrs {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("%s not listening before Close: %v", addr, err)
		}
		_ = conn.Close()
	}

	c.m.Close()

	for _, addr := range addrs {
		expectNoServer(t, addr, "Close")
	}
	if n := c.m.live.Load(); n != 0 {
		t.Fatalf("%d goroutines still running after Close", n)
	}
	if err := client.Wait(); err == nil {
		t.Log("client saw a clean close")
	}
	if err := c.m.AddCluster("again", c.ip); !errors.Is(err, ErrClosed) {
		t.Fatalf("AddCluster after Close: err = %v, want ErrClosed", err)
	}
	if err := c.m.OpenForward(c.ip, controlPort, Target{ClusterID: c.id}); !errors.Is(err, ErrClosed) {
		t.Fatalf("OpenForward after Close: err = %v, want ErrClosed", err)
	}
	c.m.Close() // idempotent
}

func TestRemoveClusterStopsOnlyItsListeners(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	other := addTestCluster(t, c.m, c.src, "other")

	c.m.RemoveCluster(c.id)

	for _, port := range []int{controlPort, workerPort, 6443} {
		expectNoServer(t, c.addr(port), "RemoveCluster")
	}
	if c.m.HostKey(c.id) != nil {
		t.Error("HostKey survives RemoveCluster")
	}
	if _, err := c.m.Kubeconfig(c.id, "x"); err == nil {
		t.Error("Kubeconfig survives RemoveCluster")
	}
	if res := other.exec(t, controlPort, "sudo /opt/bin/kubectl get nodes -o name"); res.status != 0 {
		t.Fatalf("other cluster after RemoveCluster: %+v", res)
	}
	if resp, _ := other.rawGet(t, "/api/v1/nodes", other.adminCert(t), ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("other cluster API: status %d", resp.StatusCode)
	}
	c.m.RemoveCluster(c.id) // idempotent
}

func TestAddClusterOnAnotherIPMovesTheAPI(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	hostKey := c.m.HostKey(c.id)
	oldIP := c.ip
	newIP := withFreeIP(t, func(ip string) error { return c.m.AddCluster(c.id, ip) })

	expectNoServer(t, net.JoinHostPort(oldIP, "6443"), "the API moved")
	c.ip = newIP
	if resp, _ := c.rawGet(t, "/api/v1/nodes", c.adminCert(t), ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("API on the new address: status %d", resp.StatusCode)
	}
	if string(c.m.HostKey(c.id).Marshal()) != string(hostKey.Marshal()) {
		t.Fatal("moving the API changed the host key")
	}
	if err := c.m.AddCluster(c.id, "not-an-ip"); err == nil {
		t.Fatal("AddCluster accepted an invalid IP")
	}
}

func TestUnknownClusterInSource(t *testing.T) {
	t.Parallel()
	src := newFakeSource()
	c := addTestCluster(t, newTestManager(t, src), src, "gone")
	src.mu.Lock()
	delete(src.nodes, c.id)
	src.mu.Unlock()

	res := c.exec(t, controlPort, "sudo /opt/bin/kubectl get nodes")
	want := "The connection to the server " + c.addr(6443) + " was refused - did you specify the right host or port?\n"
	if res.status != 1 || res.stderr != want {
		t.Fatalf("kubectl for a cluster the model forgot: %+v", res)
	}
	resp, body := c.rawGet(t, "/api/v1/nodes", c.adminCert(t), "")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "ServiceUnavailable") {
		t.Fatalf("API for a cluster the model forgot: %d %s", resp.StatusCode, body)
	}
}
