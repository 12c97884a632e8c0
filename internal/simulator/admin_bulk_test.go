package simulator

import (
	"strings"
	"testing"
)

// Many stray VMs at once land in the account as one by one would, and the
// first one that cannot be created stops the rest.
func TestAdminCreateStrayVMs(t *testing.T) {
	t.Parallel()
	a := newAdminEnv(t)
	ids, err := a.sim.CreateStrayVMs([]StrayVM{{ClusterID: a.id, Name: "app-1"}, {ClusterID: a.id, Name: "app-2", State: "Stopped"}})
	if err != nil || len(ids) != 2 {
		t.Fatalf("ids %v, err %v", ids, err)
	}
	for i, want := range []string{"app-1", "app-2"} {
		if got := a.vmName(ids[i]); got != want {
			t.Fatalf("VM %s is named %q, want %q", ids[i], got, want)
		}
	}
	ids, err = a.sim.CreateStrayVMs([]StrayVM{{ClusterID: a.id, Name: "app-3"}, {ClusterID: "no-such-cluster"}, {ClusterID: a.id}})
	if len(ids) != 1 || err == nil || !strings.Contains(err.Error(), "VM 2 of 3") {
		t.Fatalf("ids %v, err %v", ids, err)
	}
}
