package simulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/admin"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// adminEnv is a cluster with 1 control and 2 workers and its SSH address.
type adminEnv struct {
	*testEnv
	id      string
	ip      string
	workers []string // VM ids in map order
}

func newAdminEnv(t *testing.T) *adminEnv {
	t.Helper()
	e := newEnv(t, Options{})
	id := e.createCluster(e.createParams("admin", 2))
	cl := e.cluster(id)
	a := &adminEnv{testEnv: e, id: id, ip: cl.Ipaddress}
	for _, v := range cl.Virtualmachines {
		if strings.Contains(v.Name, "-node-") {
			a.workers = append(a.workers, v.Id)
		}
	}
	return a
}

func (a *adminEnv) kubectlNames() []string {
	a.t.Helper()
	out, err := sshTry(a.testEnv, a.id, a.ip, 2222, "sudo /opt/bin/kubectl get nodes -o name")
	if err != nil {
		a.t.Fatalf("kubectl over SSH: %v", err)
	}
	names := strings.Fields(out)
	slices.Sort(names)
	return names
}

func (a *adminEnv) vmName(id string) string {
	for _, v := range a.sim.DumpState().VMs {
		if v.ID == id {
			return v.Name
		}
	}
	return ""
}

func TestAdminKubeletAndFQDN(t *testing.T) {
	t.Parallel()
	a := newAdminEnv(t)
	if got := a.kubectlNames(); len(got) != 3 {
		t.Fatalf("nodes %v", got)
	}
	w := a.workers[0]
	// A stopped kubelet leaves its node in place, NotReady (Kubernetes API
	// view), whatever keepNode says; the VM keeps running.
	for _, keep := range []bool{false, true} {
		if err := a.sim.StopKubelet(w, keep); err != nil {
			t.Fatal(err)
		}
		if got := a.kubectlNames(); len(got) != 3 {
			t.Fatalf("kubelet stopped (keepNode %v): nodes %v, want the node still listed", keep, got)
		}
		api := newKubeAPI(t, kubeconfigOf(a.testEnv, a.id))
		nodes, status := api.nodes(t)
		if status != 200 || len(nodes) != 3 || nodes[a.vmName(w)] {
			t.Fatalf("kubelet stopped: %d %v, want the node NotReady", status, nodes)
		}
		if vms := a.cluster(a.id).Virtualmachines; vms[1].State != model.VMRunning {
			t.Fatalf("the VM must keep running: %s", vms[1].State)
		}
		if err := a.sim.StartKubelet(w); err != nil {
			t.Fatal(err)
		}
	}
	// Deleting the node object removes it; a running kubelet registers it
	// again on start.
	status, body := adminRequest(t, a.info.AdminURL, "POST", "node/delete", map[string]any{"vm_id": w})
	if status != 200 {
		t.Fatalf("node/delete: %d %s", status, body)
	}
	if got := a.kubectlNames(); len(got) != 2 || slices.Contains(got, "node/"+a.vmName(w)) {
		t.Fatalf("node deleted: nodes %v still list %s", got, a.vmName(w))
	}
	if err := a.sim.StartKubelet(w); err != nil {
		t.Fatal(err)
	}
	if got := a.kubectlNames(); len(got) != 3 {
		t.Fatalf("kubelet started: nodes %v", got)
	}

	if err := a.sim.RegisterNodeFQDN(w, ""); err != nil {
		t.Fatal(err)
	}
	fqdn := "node/" + a.vmName(w) + ".cs"
	if got := a.kubectlNames(); !slices.ContainsFunc(got, func(n string) bool {
		return strings.HasPrefix(n, fqdn) && strings.HasSuffix(n, "cloud.internal")
	}) {
		t.Fatalf("FQDN node missing: %v", got)
	}
	if err := a.sim.RegisterNodeFQDN(w, "worker.example.internal"); err != nil {
		t.Fatal(err)
	}
	if got := a.kubectlNames(); !slices.Contains(got, "node/worker.example.internal") {
		t.Fatalf("explicit FQDN missing: %v", got)
	}
}

func TestAdminMapRows(t *testing.T) {
	t.Parallel()
	a := newAdminEnv(t)
	w := a.workers[1]
	if err := a.sim.DeleteMapRow(a.id, w); err != nil {
		t.Fatal(err)
	}
	a.sim.RunScanner()
	cl := a.cluster(a.id)
	if len(cl.Virtualmachines) != 2 || cl.State != model.ClusterAlert {
		t.Fatalf("row deleted: %d VMs, state %s", len(cl.Virtualmachines), cl.State)
	}
	if err := a.sim.RestoreMapRow(a.id, w); err != nil {
		t.Fatal(err)
	}
	a.sim.RunScanner()
	if cl := a.cluster(a.id); len(cl.Virtualmachines) != 3 || cl.Virtualmachines[2].Id != w || cl.State != model.ClusterRunning {
		t.Fatalf("row restored: %d VMs, state %s", len(cl.Virtualmachines), cl.State)
	}
	rowsBefore := len(a.sim.DumpState().VMMap)

	// A row for a VM that never existed: invisible in the response; the
	// scanner hits a NullPointerException on it and leaves the cluster as it
	// is for the pass, even with the row of a real worker gone.
	const ghost = "99999999-9999-4999-8999-999999999999"
	if err := a.sim.InsertMapRow(a.id, ghost, MapRowSpec{}); err != nil {
		t.Fatal(err)
	}
	if got := len(a.sim.DumpState().VMMap); got != rowsBefore+1 {
		t.Fatalf("map rows %d, want %d", got, rowsBefore+1)
	}
	if err := a.sim.DeleteMapRow(a.id, w); err != nil {
		t.Fatal(err)
	}
	a.sim.RunScanner()
	cl = a.cluster(a.id)
	if len(cl.Virtualmachines) != 2 || cl.State != model.ClusterRunning {
		t.Fatalf("row for a missing VM: %d VMs, state %s, want the cluster skipped (Running)", len(cl.Virtualmachines), cl.State)
	}
	if err := a.sim.DeleteMapRow(a.id, ghost); err != nil {
		t.Fatal(err)
	}
	a.sim.RunScanner()
	if st := a.cluster(a.id).State; st != model.ClusterAlert {
		t.Fatalf("ghost row gone, the map short: state %s, want Alert", st)
	}
	if err := a.sim.DeleteMapRow(a.id, "nope"); err == nil || !errors.Is(err, admin.ErrNotFound) {
		t.Fatalf("deleting a missing row: %v", err)
	}
}

func TestAdminVMOperations(t *testing.T) {
	t.Parallel()
	a := newAdminEnv(t)
	created := time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)
	strayID, strayName, err := a.sim.CreateStrayVM(StrayVM{ClusterID: a.id, Created: created, Join: true})
	if err != nil {
		t.Fatal(err)
	}
	if strayName != "admin-node-"+model.HexMillis(created.UnixMilli()) {
		t.Fatalf("stray name %q", strayName)
	}
	vp := a.cs.VirtualMachine.NewListVirtualMachinesParams()
	vp.SetId(strayID)
	vms, err := a.cs.VirtualMachine.ListVirtualMachines(vp)
	if err != nil || vms.Count != 1 || vms.VirtualMachines[0].Created != "2026-08-01T10:00:00+0000" || vms.VirtualMachines[0].Name != strayName ||
		vms.VirtualMachines[0].Vmtype != "User" {
		t.Fatalf("stray VM: %+v %v", vms, err)
	}
	if len(a.cluster(a.id).Virtualmachines) != 3 {
		t.Fatal("a stray VM must not be in the cluster's VM map")
	}
	if got := a.kubectlNames(); !slices.Contains(got, "node/"+strayName) {
		t.Fatalf("joined stray VM not a node: %v", got)
	}

	// Expunge a worker: it leaves listVirtualMachines and its PF is revoked;
	// its map row stays.
	w := a.workers[1]
	if err := a.sim.ExpungeVM(w); err != nil {
		t.Fatal(err)
	}
	vp.SetId(w)
	if vms, err := a.cs.VirtualMachine.ListVirtualMachines(vp); err == nil {
		t.Fatalf("expunged VM listed: %+v", vms)
	}
	a.sim.RunScanner()
	cl := a.cluster(a.id)
	if got := forwardPorts(a.portForwards(cl.Ipaddressid)); !slices.Equal(got, []string{"2222->22", "2223->22"}) {
		t.Fatalf("PFs after expunge %v", got)
	}
	if cl.State != model.ClusterAlert {
		t.Fatalf("map row of an expunged VM: state %s, want Alert", cl.State)
	}

	// VM state.
	if err := a.sim.SetVMState(a.workers[0], "Error"); err != nil {
		t.Fatal(err)
	}
	vp.SetId(a.workers[0])
	if vms, err := a.cs.VirtualMachine.ListVirtualMachines(vp); err != nil || vms.VirtualMachines[0].State != "Error" {
		t.Fatalf("VM state: %+v %v", vms, err)
	}
	if err := a.sim.SetVMState(a.workers[0], "Exploded"); err == nil {
		t.Fatal("unknown VM state accepted")
	}
}

func TestAdminRulesAndClusterState(t *testing.T) {
	t.Parallel()
	a := newAdminEnv(t)
	cl := a.cluster(a.id)
	var pf2222 string
	for _, r := range a.portForwards(cl.Ipaddressid) {
		if r.Publicport == "2222" {
			pf2222 = r.Id
		}
	}
	if err := a.sim.DeleteRule(pf2222); err != nil {
		t.Fatal(err)
	}
	_, err := net.DialTimeout("tcp", net.JoinHostPort(a.ip, "2222"), 5*time.Second)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("SSH port after deleting its PF: %v, want connection refused", err)
	}
	var fw *cloudstack.FirewallRule
	for _, r := range a.firewallRules(cl.Ipaddressid) {
		if r.Startport == 2222 {
			fw = r
		}
	}
	if err := a.sim.DeleteRule(fw.Id); err != nil {
		t.Fatal(err)
	}
	if got := firewallRanges(a.firewallRules(cl.Ipaddressid)); !slices.Equal(got, []string{"6443-6443"}) {
		t.Fatalf("firewall rules after delete %v", got)
	}
	if err := a.sim.SetClusterState(a.id, model.ClusterError); err != nil {
		t.Fatal(err)
	}
	if st := a.cluster(a.id).State; st != model.ClusterError {
		t.Fatalf("state %s", st)
	}
	if err := a.sim.SetClusterState(a.id, "Sleeping"); err == nil {
		t.Fatal("unknown cluster state accepted")
	}
}

func TestAdminEndpointFaults(t *testing.T) {
	t.Parallel()
	a := newAdminEnv(t)
	a.sim.DropNextSSHCommands(1)
	if out, err := sshTry(a.testEnv, a.id, a.ip, 2222, "sudo /opt/bin/kubectl get nodes -o name"); err == nil {
		t.Fatalf("dropped SSH command succeeded: %q", out)
	}
	if got := a.kubectlNames(); len(got) != 3 {
		t.Fatalf("SSH after the drop: %v", got)
	}
	a.sim.SetSSHLatency(300 * time.Millisecond)
	start := time.Now()
	a.kubectlNames()
	if elapsed := time.Since(start); elapsed < 300*time.Millisecond {
		t.Fatalf("SSH latency not applied: %v", elapsed)
	}
	a.sim.SetSSHLatency(0)
	if a.sim.SSHSessions() < 3 {
		t.Fatalf("SSH sessions counted: %d", a.sim.SSHSessions())
	}

	api := newKubeAPI(t, kubeconfigOf(a.testEnv, a.id))
	a.sim.FailNextKubeAPI(http.StatusServiceUnavailable, 1)
	if _, status := api.nodes(t); status != http.StatusServiceUnavailable {
		t.Fatalf("injected Kubernetes API failure: %d", status)
	}
	if nodes, status := api.nodes(t); status != 200 || len(nodes) != 3 {
		t.Fatalf("Kubernetes API after the failure: %d %v", status, nodes)
	}

	// Host key: the admin route gives the key SSH presents.
	_, body := adminRequest(t, a.info.AdminURL, http.MethodGet, "cluster/hostkey?cluster_id="+a.id, nil)
	var hk map[string]string
	if err := json.Unmarshal(body, &hk); err != nil {
		t.Fatal(err)
	}
	pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(hk["host_key"]))
	if err != nil || !bytes.Equal(pub.Marshal(), a.sim.HostKey(a.id).Marshal()) {
		t.Fatalf("host key route %q: %v", hk["host_key"], err)
	}

	// Command latency.
	a.sim.SetCommandLatency("listZones", 200*time.Millisecond)
	start = time.Now()
	if _, err := a.cs.Zone.ListZones(a.cs.Zone.NewListZonesParams()); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < 200*time.Millisecond {
		t.Fatalf("command latency not applied: %v", elapsed)
	}
}

func adminRequest(t *testing.T, adminURL, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, adminURL+"/"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

func TestAdminHTTPAndDump(t *testing.T) {
	t.Parallel()
	a := newAdminEnv(t)
	d1, err := a.sim.Dump()
	if err != nil {
		t.Fatal(err)
	}
	a.cluster(a.id) // a read (and a scanner pass) changes nothing
	d2, _ := a.sim.Dump()
	if !bytes.Equal(d1, d2) {
		t.Fatal("two dumps of the same state differ")
	}
	status, viaHTTP := adminRequest(t, a.info.AdminURL, http.MethodGet, "dump", nil)
	var fromHTTP, fromGo DumpState
	if status != 200 || json.Unmarshal(viaHTTP, &fromHTTP) != nil || json.Unmarshal(d1, &fromGo) != nil {
		t.Fatalf("dump route: %d", status)
	}
	if b1, _ := json.Marshal(fromHTTP); !bytes.Equal(b1, mustJSON(t, fromGo)) {
		t.Fatal("dump over HTTP differs from Dump()")
	}
	if len(fromGo.Clusters) != 1 || len(fromGo.VMMap) != 3 || len(fromGo.Nodes) != 3 || len(fromGo.Rules) != 6 {
		t.Fatalf("dump content: %d clusters %d rows %d nodes %d rules", len(fromGo.Clusters), len(fromGo.VMMap), len(fromGo.Nodes), len(fromGo.Rules))
	}

	// Admin routes over HTTP, string values as the CLI sends them.
	status, body := adminRequest(t, a.info.AdminURL, http.MethodPost, "map/delete", map[string]string{"cluster_id": a.id, "vm_id": a.workers[0]})
	if status != 200 {
		t.Fatalf("map/delete: %d %s", status, body)
	}
	d3, _ := a.sim.Dump()
	if bytes.Equal(d1, d3) {
		t.Fatal("dump did not change after an admin change")
	}
	status, body = adminRequest(t, a.info.AdminURL, http.MethodPost, "map/restore", map[string]string{"cluster_id": a.id, "vm_id": a.workers[0]})
	if status != 200 {
		t.Fatalf("map/restore: %d %s", status, body)
	}
	status, _ = adminRequest(t, a.info.AdminURL, http.MethodPost, "fault/api", map[string]string{"command": "listZones", "count": "1", "code": "530"})
	if status != 200 {
		t.Fatalf("fault/api: %d", status)
	}
	if _, err := a.cs.Zone.ListZones(a.cs.Zone.NewListZonesParams()); err == nil || !strings.Contains(err.Error(), "530") {
		t.Fatalf("fault/api had no effect: %v", err)
	}
	status, _ = adminRequest(t, a.info.AdminURL, http.MethodPost, "clock/advance", map[string]string{"duration": "1h"})
	if status != 200 {
		t.Fatalf("clock/advance: %d", status)
	}
	status, body = adminRequest(t, a.info.AdminURL, http.MethodGet, "calls", nil)
	if status != 200 || !strings.Contains(string(body), `"listZones":1`) {
		t.Fatalf("calls: %d %s", status, body)
	}
	status, body = adminRequest(t, a.info.AdminURL, http.MethodPost, "vm/state", map[string]string{"vm_id": "nope", "state": "Stopped"})
	if status != http.StatusNotFound {
		t.Fatalf("unknown VM: %d %s", status, body)
	}
	status, _ = adminRequest(t, a.info.AdminURL, http.MethodGet, "no/such/route", nil)
	if status != http.StatusNotFound {
		t.Fatalf("unknown route: %d", status)
	}
	status, body = adminRequest(t, a.info.AdminURL, http.MethodGet, "info", nil)
	var info Info
	if status != 200 || json.Unmarshal(body, &info) != nil || info.ZoneID != a.info.ZoneID {
		t.Fatalf("info: %d %s", status, body)
	}
	q := url.Values{"cluster_id": {"nope"}}
	if status, _ := adminRequest(t, a.info.AdminURL, http.MethodGet, "cluster/hostkey?"+q.Encode(), nil); status != http.StatusNotFound {
		t.Fatalf("host key of an unknown cluster: %d", status)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAdminNodeCountCorrectionIsWhatTheScannerNeeds(t *testing.T) {
	t.Parallel()
	e, id, _, code, _ := etcdScaleRun(t, Options{Profile: Profile42211}, 1, 2, 1)
	if code != 530 {
		t.Fatalf("set-up: last scale %d, want the 530 of the etcd rule pick", code)
	}
	if err := e.sim.SetClusterNodeCount(id, 1); err != nil {
		t.Fatal(err)
	}
	if c := e.cluster(id); c.Size != 1 || c.State != model.ClusterAlert {
		t.Fatalf("after the correction: %s size %d, want Alert size 1 until the scanner runs", c.State, c.Size)
	}
	// The count alone is not enough: the bad pick removed the forward on
	// 2222 that the scanner's reconciliation needs.
	if st := e.scanned(id); st != model.ClusterAlert {
		t.Fatalf("scanner without SSH through 2222: %s, want Alert", st)
	}
	if err := e.sim.SetClusterNodeCount(id, -1); err == nil {
		t.Error("a negative node_count was accepted")
	}
	if err := e.sim.SetClusterNodeCount("no-such-cluster", 1); err == nil {
		t.Error("an unknown cluster was accepted")
	}
}
