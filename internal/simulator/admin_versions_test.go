package simulator

import (
	"strings"
	"testing"
)

// A kubelet upgraded by hand reports its new version in the VERSION column
// of kubectl get nodes, while the VM map keeps the version the last upgrade
// wrote.
func TestAdminKubeletVersion(t *testing.T) {
	t.Parallel()
	a := newAdminEnv(t)
	w := a.workers[0]
	rowVersion := mapNodeVersion(t, a, w)
	if rowVersion == "" {
		t.Fatalf("the map row of %s records no version", w)
	}
	status, body := adminRequest(t, a.info.AdminURL, "POST", "node/version", map[string]any{"vm_id": w, "version": "v1.99.1"})
	if status != 200 {
		t.Fatalf("node/version: %d %s", status, body)
	}
	out, err := sshTry(a.testEnv, a.id, a.ip, 2222, "sudo /opt/bin/kubectl get nodes")
	if err != nil {
		t.Fatal(err)
	}
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, a.vmName(w)) {
			line = l
		}
	}
	if fields := strings.Fields(line); len(fields) < 5 || fields[4] != "v1.99.1" {
		t.Fatalf("kubectl get nodes shows %q for %s:\n%s", line, a.vmName(w), out)
	}
	if got := mapNodeVersion(t, a, w); got != rowVersion {
		t.Fatalf("the map row changed from %s to %s", rowVersion, got)
	}
	if err := a.sim.SetKubeletVersion("no-such-vm", "1.2.3"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("unknown VM: %v", err)
	}
	if err := a.sim.SetKubeletVersion(w, " "); err == nil {
		t.Fatal("an empty version was accepted")
	}
}

func mapNodeVersion(t *testing.T, a *adminEnv, vmID string) string {
	t.Helper()
	for _, r := range a.sim.DumpState().VMMap {
		if r.VMID == vmID {
			return r.NodeVersion
		}
	}
	t.Fatalf("no map row for %s", vmID)
	return ""
}
