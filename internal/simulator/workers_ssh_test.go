package simulator

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

func (e *testEnv) startCluster(id string) string {
	e.t.Helper()
	r, err := e.cs.Kubernetes.StartKubernetesCluster(e.cs.Kubernetes.NewStartKubernetesClusterParams(id))
	if err != nil {
		e.t.Fatal(err)
	}
	return r.JobID
}

func (e *testEnv) stopCluster(id string) {
	e.t.Helper()
	r, err := e.cs.Kubernetes.StopKubernetesCluster(e.cs.Kubernetes.NewStopKubernetesClusterParams(id))
	if err != nil {
		e.t.Fatal(err)
	}
	e.mustSucceed(r.JobID)
}

// addForward creates a TCP port forward public -> 22 on the cluster IP.
func (e *testEnv) addForward(ipID string, public int, vmID string) {
	e.t.Helper()
	status, body := e.adminCall("createPortForwardingRule", url.Values{"ipaddressid": {ipID}, "protocol": {"tcp"},
		"publicport": {strconv.Itoa(public)}, "privateport": {"22"}, "virtualmachineid": {vmID}, "openfirewall": {"false"}})
	if status != 200 {
		e.t.Fatalf("createPortForwardingRule %d: %d %v", public, status, body)
	}
	e.mustSucceed(asStr(e.t, inner(e.t, body, "createportforwardingruleresponse")["jobid"]))
}

func TestStartNeedsSSHThroughPort2222ToTheFirstControlNode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.createCluster(e.createParams("start", 1))
	control, worker := vmIDByRole(e, id, "-control-"), vmIDByRole(e, id, "-node-")
	const noConfig = "Failed to start Kubernetes cluster : start in usable state as unable to retrieve kube-config for the cluster"

	// No forward on 2222: the kubeconfig cannot be read over SSH.
	e.stopCluster(id)
	if err := e.sim.DeleteRule(ruleID(e, model.PurposePF, nodesStartSSHPort)); err != nil {
		t.Fatal(err)
	}
	if code, text := e.mustFail(e.startCluster(id)); code != 530 || text != noConfig {
		t.Fatalf("start without PF 2222: %d %q", code, text)
	}
	cl := e.cluster(id)
	if cl.State != model.ClusterAlert || cl.Virtualmachines[0].State != model.VMRunning {
		t.Fatalf("after the failed start: %s, VM %s; want Alert with the VMs started", cl.State, cl.Virtualmachines[0].State)
	}

	// 2222 forwarded to a worker: no admin kubeconfig there.
	e.stopCluster(id)
	e.addForward(cl.Ipaddressid, nodesStartSSHPort, worker)
	if code, text := e.mustFail(e.startCluster(id)); code != 530 || text != noConfig {
		t.Fatalf("start with PF 2222 to a worker: %d %q", code, text)
	}

	// Back to the control node: the start succeeds.
	e.stopCluster(id)
	if err := e.sim.DeleteRule(ruleID(e, model.PurposePF, nodesStartSSHPort)); err != nil {
		t.Fatal(err)
	}
	e.addForward(cl.Ipaddressid, nodesStartSSHPort, control)
	e.mustSucceed(e.startCluster(id))
	if st := e.cluster(id).State; st != model.ClusterRunning {
		t.Fatalf("start with PF 2222 to the control node: %s", st)
	}

	// 6443 closed: the API check fails first.
	e.stopCluster(id)
	if err := e.sim.DeleteRule(ruleID(e, model.PurposeFirewall, clusterAPIPort)); err != nil {
		t.Fatal(err)
	}
	if code, text := e.mustFail(e.startCluster(id)); code != 530 || text != "Failed to start Kubernetes cluster : start in usable state" {
		t.Fatalf("start without the 6443 rule: %d %q", code, text)
	}
	if st := e.cluster(id).State; st != model.ClusterAlert {
		t.Fatalf("state %s, want Alert", st)
	}
}

func TestUpgradeNeedsEveryNodeForward(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	upgrade := func(id, semver string) string {
		t.Helper()
		r, err := e.cs.Kubernetes.UpgradeKubernetesCluster(e.cs.Kubernetes.NewUpgradeKubernetesClusterParams(id, e.info.KubernetesVersions[semver]))
		if err != nil {
			t.Fatal(err)
		}
		return r.JobID
	}
	nodeVersions := func(id string) map[string]string {
		out := map[string]string{}
		for _, v := range e.cluster(id).Virtualmachines {
			for _, n := range e.sim.DumpState().Nodes {
				if n.VMID == v.Id {
					out[v.Name] = n.Version
				}
			}
		}
		return out
	}

	// The second worker's forward (2224) is gone: the control node and the
	// first worker are upgraded, then the job fails and the cluster is Alert.
	id := e.createCluster(e.createParams("upgrade", 2))
	workers := workerVMs(e, id)
	if err := e.sim.DeleteRule(ruleID(e, model.PurposePF, nodesStartSSHPort+2)); err != nil {
		t.Fatal(err)
	}
	code, text := e.mustFail(upgrade(id, "1.34.2"))
	if code != 530 || text != "Failed to upgrade Kubernetes cluster : upgrade, unable to upgrade Kubernetes node on VM : "+workers[1] {
		t.Fatalf("upgrade without PF 2224: %d %q", code, text)
	}
	versions := nodeVersions(id)
	if cl := e.cluster(id); cl.State != model.ClusterAlert || versions[workers[0]] != "1.34.2" || versions[workers[1]] != "1.33.13" {
		t.Fatalf("after the failed upgrade: %s %v", cl.State, versions)
	}

	// A forward that reaches another node: the script upgrades that node
	// and the check of the intended one fails.
	id2 := e.createCluster(e.createParams("retarget", 2))
	cl := e.cluster(id2)
	workers = workerVMs(e, id2)
	if err := e.sim.DeleteRule(ruleIDOn(e, cl.Ipaddressid, model.PurposePF, nodesStartSSHPort+1)); err != nil {
		t.Fatal(err)
	}
	var second string
	for _, v := range cl.Virtualmachines {
		if v.Name == workers[1] {
			second = v.Id
		}
	}
	e.addForward(cl.Ipaddressid, nodesStartSSHPort+1, second)
	code, text = e.mustFail(upgrade(id2, "1.34.2"))
	if code != 530 || text != "Failed to upgrade Kubernetes cluster : retarget, unable to get Kubernetes node on VM : "+workers[0]+" upgraded to version 1.34.2" {
		t.Fatalf("upgrade through a forward to the wrong node: %d %q", code, text)
	}
	if v := nodeVersions(id2); v[workers[0]] != "1.33.13" || v[workers[1]] != "1.34.2" {
		t.Fatalf("node versions %v: the script ran on the second worker", v)
	}

	// Every forward in place: the upgrade succeeds.
	id3 := e.createCluster(e.createParams("clean", 2))
	e.mustSucceed(upgrade(id3, "1.34.2"))
	for name, v := range nodeVersions(id3) {
		if v != "1.34.2" {
			t.Fatalf("node %s on %s", name, v)
		}
	}
}

func TestRefusedDeleteKeepsTheState(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.createCluster(e.createParams("keep", 1))
	if _, _, err := e.sim.CreateStrayVM(StrayVM{ClusterID: id}); err != nil {
		t.Fatal(err)
	}
	for _, state := range []string{model.ClusterRunning, model.ClusterAlert} {
		if err := e.sim.SetClusterState(id, state); err != nil {
			t.Fatal(err)
		}
		r, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(id))
		if err != nil {
			t.Fatal(err)
		}
		code, text := e.mustFail(r.JobID)
		if code != 530 || text != "Network : keep-network for Kubernetes cluster : keep has instances using it which are not part of the Kubernetes cluster" {
			t.Fatalf("delete with a foreign VM on the network: %d %q", code, text)
		}
		if st := e.cluster(id).State; st != state {
			t.Fatalf("refused delete from %s left %s, want %s (the checks run before Destroying)", state, st, state)
		}
	}
}

func TestFailedJobResultAndClusterResponseShape(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.createCluster(e.createParams("shape", 1))
	if err := e.sim.SetClusterState(id, model.ClusterAlert); err != nil {
		t.Fatal(err)
	}
	jobID := e.scale(id, 2)
	e.mustFail(jobID)
	_, body := e.adminCall("queryAsyncJobResult", url.Values{"jobid": {jobID}})
	result := asObj(t, inner(t, body, "queryasyncjobresultresponse")["jobresult"])
	if l, ok := result["uuidList"].([]any); !ok || len(l) != 0 || result["errorcode"] != float64(530) || result["errortext"] == nil {
		t.Fatalf("failed job result %v: want uuidList [], errorcode and errortext", result)
	}
	_, body = e.adminCall("listKubernetesClusters", url.Values{"id": {id}})
	cl := asObj(t, asList(t, inner(t, body, "listkubernetesclustersresponse")["kubernetescluster"])[0])
	if _, ok := cl["consoleendpoint"]; ok {
		t.Fatalf("the cluster response has consoleendpoint: %v", cl["consoleendpoint"])
	}
	if cl["endpoint"] == nil {
		t.Fatal("the cluster response lacks endpoint")
	}
}
