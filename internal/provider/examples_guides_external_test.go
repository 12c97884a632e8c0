package provider

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGuideExternalNodesExample runs the external nodes guide as a user
// does: a cluster on their network, two VMs of theirs joined as GPU nodes,
// a scale up and down around them, the resource example joining a third
// VM and taking it out, one node removed by dropping its id, and a
// destroy. After each apply the plan is empty, every SSH path (the
// external nodes' included) works and the drift check is clean; no VM of
// the user's is destroyed.
func TestGuideExternalNodesExample(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	run := newDocRun(t, "docs/guides/external-nodes.md")
	work := t.TempDir()
	writeFile(t, work, "cluster.tf", run.block(`resource "cks_cluster_node" "gpu"`))
	base := append(simVars(env), "TF_VAR_network=sim-isolated-network")
	var id string
	apply := func(size int, vmIDs ...string) {
		t.Helper()
		ids, err := json.Marshal(append([]string{}, vmIDs...))
		if err != nil {
			t.Fatal(err)
		}
		vars := append(append([]string{}, base...), fmt.Sprintf("TF_VAR_size=%d", size), "TF_VAR_gpu_vm_ids="+string(ids))
		r.terraform(work, vars, "apply", "-auto-approve", "-input=false", "-no-color")
		r.terraform(work, vars, "plan", "-detailed-exitcode", "-input=false", "-no-color")
		id = env.liveClusters()[0].ID
		if err := env.externalCheck(t, &id, int64(size), vmIDs)(nil); err != nil {
			t.Fatalf("after the apply of size %d with external nodes %v: %v", size, vmIDs, err)
		}
	}
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	apply(1)
	env.Sim.AdvanceClock(2 * time.Second) // the user's VMs come after the cluster's own
	gpu1 := env.DeployVM(env.Info.IsolatedNetworkID, "gpu-1", true)
	gpu2 := env.DeployVM(env.Info.IsolatedNetworkID, "gpu-2", true)
	gpu3 := env.DeployVM(env.Info.IsolatedNetworkID, "gpu-3", true)
	apply(1, gpu1, gpu2)
	apply(2, gpu1, gpu2)
	apply(1, gpu1, gpu2)

	// The resource example joins a third VM to the guide's cluster by its
	// name, and its destroy takes the VM out again.
	node := r.copyExample(filepath.Join("..", "..", "examples", "resources", "cks_cluster_node"))
	nodeVars := append(simVars(env), "TF_VAR_cluster_name=prod", "TF_VAR_gpu_vm_id="+gpu3)
	r.terraform(node, nil, "init", "-input=false", "-no-color")
	r.terraform(node, nodeVars, "apply", "-auto-approve", "-input=false", "-no-color")
	r.terraform(node, nodeVars, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if err := env.externalCheck(t, &id, 1, []string{gpu1, gpu2, gpu3})(nil); err != nil {
		t.Fatalf("after the resource example's join: %v", err)
	}
	if out := r.terraform(node, nodeVars, "output", "-raw", "gpu_node_ssh"); !strings.HasPrefix(out, env.liveClusters()[0].IP+":") {
		t.Fatalf("the resource example's gpu_node_ssh is %q", out)
	}
	r.terraform(node, nodeVars, "destroy", "-auto-approve", "-input=false", "-no-color")

	apply(1, gpu1)
	r.terraform(work, base, "destroy", "-auto-approve", "-input=false", "-no-color")
	if err := env.expectOnlyVMsLeft(gpu1, gpu2, gpu3); err != nil {
		t.Fatal(err)
	}
}
