package simulator

import (
	"net/url"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

func TestCreateValidationErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	base := func() url.Values {
		return url.Values{"name": {"v"}, "zoneid": {e.info.ZoneID}, "size": {"1"},
			"kubernetesversionid": {e.info.KubernetesVersions["1.33.13"]}, "serviceofferingid": {e.info.ServiceOfferingID}}
	}
	with := func(k, v string) url.Values {
		p := base()
		if v == "" {
			p.Del(k)
		} else {
			p.Set(k, v)
		}
		return p
	}
	const unknown = "11111111-2222-4333-8444-555555555555"
	cases := []struct {
		name   string
		params url.Values
		code   int
		text   string
	}{
		{"missing name", with("name", ""), 431, "Unable to execute API command createkubernetescluster due to missing parameter name"},
		{"unknown zone", with("zoneid", unknown), 431, "Invalid parameter zoneid value=" + unknown + " due to incorrect long value format"},
		{"bad size", with("size", "two"), 431, "Invalid parameter size value=two"},
		{"disabled version", with("kubernetesversionid", e.info.DisabledKubernetesVersions["1.35.0"]), 530, "is in Disabled state"},
		{"no version", with("kubernetesversionid", ""), 530, "a valid Kubernetes version must be specified"},
		{"size zero", with("size", "0"), 530, "Invalid cluster size: 0"},
		{"too large", with("size", "10"), 530, "Invalid cluster size: 10"},
		{"root disk", with("noderootdisksize", "4"), 530, "node root disk size: 4 GB"},
		{"keypair", with("keypair", "nope"), 530, "Unable to find SSH keypair with name: nope"},
		{"etcd count", with("etcdnodes", "-1"), 530, "Invalid etcd nodes count: -1"},
		{"external managed", with("clustertype", "ExternalManaged"), 530, "ExternalManaged"},
	}
	for _, c := range cases {
		status, body := e.adminCall("createKubernetesCluster", c.params)
		errBody := inner(t, body, "createkubernetesclusterresponse")
		text, _ := errBody["errortext"].(string)
		if status != c.code || errBody["errorcode"] != float64(c.code) || !strings.Contains(text, c.text) {
			t.Errorf("%s: HTTP %d %v, want %d containing %q", c.name, status, errBody, c.code, c.text)
		}
	}
	if d := e.sim.DumpState(); len(d.Clusters) != 0 || len(d.Networks) != 6 {
		t.Fatalf("failed creates left %d clusters and %d networks", len(d.Clusters), len(d.Networks))
	}
}

func TestScaleValidationInJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	id := e.createCluster(e.createParams("scalecheck", 2))

	sp := e.cs.Kubernetes.NewScaleKubernetesClusterParams(id)
	r, err := e.cs.Kubernetes.ScaleKubernetesCluster(sp)
	if err != nil {
		t.Fatalf("scale without parameters must be accepted and fail in the job: %v", err)
	}
	if code, text := e.mustFail(r.JobID); code != 530 || text != "Kubernetes cluster scalecheck cannot be scaled, either service offering or cluster size or nodeids to be removed or autoscaling must be passed" {
		t.Fatalf("no parameters: %d %q", code, text)
	}
	if code, text := e.mustFail(e.scale(id, 10)); code != 530 || text != "Maximum cluster size can not exceed 10. Please contact your administrator" {
		t.Fatalf("too large: %d %q", code, text)
	}

	// Remove one chosen worker with nodeids.
	workers := workerVMs(e, id)
	var victim string
	for _, v := range e.cluster(id).Virtualmachines {
		if v.Name == workers[0] {
			victim = v.Id
		}
	}
	np := e.cs.Kubernetes.NewScaleKubernetesClusterParams(id)
	np.SetNodeids([]string{victim})
	r, err = e.cs.Kubernetes.ScaleKubernetesCluster(np)
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(r.JobID)
	cl := e.cluster(id)
	if cl.Size != 1 || len(workerVMs(e, id)) != 1 || workerVMs(e, id)[0] != workers[1] {
		t.Fatalf("after removing %s: size %d workers %v", workers[0], cl.Size, workerVMs(e, id))
	}

	// A stopped cluster's size can not change; the state stays.
	stop, err := e.cs.Kubernetes.StopKubernetesCluster(e.cs.Kubernetes.NewStopKubernetesClusterParams(id))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(stop.JobID)
	if code, text := e.mustFail(e.scale(id, 2)); code != 530 || text != "Kubernetes cluster : scalecheck is in Stopped state" {
		t.Fatalf("scale a stopped cluster: %d %q", code, text)
	}
	if st := e.cluster(id).State; st != model.ClusterStopped {
		t.Fatalf("state %s after a refused scale", st)
	}
	// Offerings of a stopped cluster can change.
	op := e.cs.Kubernetes.NewScaleKubernetesClusterParams(id)
	op.SetServiceofferingid(e.info.LargeServiceOfferingID)
	r, err = e.cs.Kubernetes.ScaleKubernetesCluster(op)
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(r.JobID)
	// calculateNewClusterCountAndCapacity reads the node types' offering
	// from their first VM after upgradeVirtualMachine changed it, so the
	// capacity (2 nodes at 2 vCPUs) stays as it was.
	if cl := e.cluster(id); cl.State != model.ClusterStopped || cl.Serviceofferingname != "cks-large" || cl.Cpunumber != "4" {
		t.Fatalf("offering scale of a stopped cluster: %s %s %s", cl.State, cl.Serviceofferingname, cl.Cpunumber)
	}

	// Alert clusters can not be scaled.
	if err := e.sim.SetClusterState(id, model.ClusterAlert); err != nil {
		t.Fatal(err)
	}
	code, text := e.mustFail(e.scale(id, 2))
	if code != 530 || text != "Kubernetes cluster scalecheck is in Alert state and can not be scaled" {
		t.Fatalf("scale in Alert: %d %q", code, text)
	}
}

func TestUpgradeRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	id := e.createCluster(e.createParams("upgrade", 1))
	upgrade := func(semver string, disabled bool) (int, string) {
		vid := e.info.KubernetesVersions[semver]
		if disabled {
			vid = e.info.DisabledKubernetesVersions[semver]
		}
		r, err := e.cs.Kubernetes.UpgradeKubernetesCluster(e.cs.Kubernetes.NewUpgradeKubernetesClusterParams(id, vid))
		if err != nil {
			t.Fatalf("upgrade %s: %v", semver, err)
		}
		done := e.waitJob(r.JobID)
		if done.Jobstatus == model.JobSucceeded {
			return 0, ""
		}
		return e.mustFail(r.JobID)
	}
	checks := []struct {
		semver   string
		disabled bool
		text     string
	}{
		{"1.32.9", false, "Kubernetes clusters can not be downgraded, current version: 1.33.13, upgrade version: 1.32.9"},
		{"1.33.13", false, "Kubernetes clusters can not be upgraded, current version: 1.33.13, upgrade version: 1.33.13"},
		{"1.35.0", true, "is in Disabled state"},
	}
	for _, c := range checks {
		if code, text := upgrade(c.semver, c.disabled); code != 530 || !strings.Contains(text, c.text) {
			t.Errorf("upgrade to %s: %d %q, want %q", c.semver, code, text, c.text)
		}
	}
	if code, text := upgrade("1.34.2", false); code != 0 {
		t.Fatalf("upgrade to 1.34.2: %d %q", code, text)
	}
	_, body := e.adminCall("listKubernetesClusters", url.Values{"id": {id}})
	raw := asObj(t, asList(t, inner(t, body, "listkubernetesclustersresponse")["kubernetescluster"])[0])
	if raw["kubernetesversionname"] != "v1.34.2" || raw["state"] != model.ClusterRunning {
		t.Fatalf("after upgrade: %v %v", raw["kubernetesversionname"], raw["state"])
	}
	for _, v := range asList(t, raw["virtualmachines"]) {
		// The upgrade records kubectl's VERSION column, "v" included.
		if asObj(t, v)["kubernetesnodeversion"] != "v1.34.2" {
			t.Fatalf("node version not upgraded: %v", v)
		}
	}
	for _, n := range e.sim.DumpState().Nodes {
		if n.Version != "1.34.2" {
			t.Fatalf("Kubernetes node %s still on %s", n.Name, n.Version)
		}
	}
	// Upgrades only run on Running clusters.
	stop, err := e.cs.Kubernetes.StopKubernetesCluster(e.cs.Kubernetes.NewStopKubernetesClusterParams(id))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(stop.JobID)
	if code, text := upgrade("1.34.4", false); code != 530 || !strings.Contains(text, "is not in running state") {
		t.Fatalf("upgrade of a stopped cluster: %d %q", code, text)
	}

	// At most one minor version up.
	id2 := func() string {
		p := e.cs.Kubernetes.NewCreateKubernetesClusterParams("old", e.info.KubernetesVersions["1.32.9"], "old",
			e.info.ServiceOfferingID, 1, e.info.ZoneID)
		return e.createCluster(p)
	}()
	r, err := e.cs.Kubernetes.UpgradeKubernetesCluster(e.cs.Kubernetes.NewUpgradeKubernetesClusterParams(id2, e.info.KubernetesVersions["1.34.4"]))
	if err != nil {
		t.Fatal(err)
	}
	if code, text := e.mustFail(r.JobID); code != 530 || text != "Kubernetes clusters can be upgraded between next minor or patch version releases, current version: 1.32.9, upgrade version: 1.34.4" {
		t.Fatalf("two minors up: %d %q", code, text)
	}
}

func TestStartStopSemantics(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	id := e.createCluster(e.createParams("startstop", 1))
	start := func() string {
		r, err := e.cs.Kubernetes.StartKubernetesCluster(e.cs.Kubernetes.NewStartKubernetesClusterParams(id))
		if err != nil {
			t.Fatal(err)
		}
		return r.JobID
	}
	stop := func() string {
		r, err := e.cs.Kubernetes.StopKubernetesCluster(e.cs.Kubernetes.NewStopKubernetesClusterParams(id))
		if err != nil {
			t.Fatal(err)
		}
		return r.JobID
	}
	e.mustSucceed(start()) // no-op on a Running cluster
	e.mustSucceed(stop())
	for _, v := range e.cluster(id).Virtualmachines {
		if v.State != model.VMStopped {
			t.Fatalf("VM %s is %s after stop", v.Name, v.State)
		}
	}
	for _, n := range e.sim.DumpState().Nodes {
		if n.Ready {
			t.Fatalf("node %s Ready while its VM is stopped", n.Name)
		}
	}
	e.mustSucceed(stop()) // no-op on a Stopped cluster
	if st := e.cluster(id).State; st != model.ClusterStopped {
		t.Fatalf("state %s", st)
	}
	e.mustSucceed(start())
	cl := e.cluster(id)
	if cl.State != model.ClusterRunning {
		t.Fatalf("state %s after start", cl.State)
	}
	for _, n := range e.sim.DumpState().Nodes {
		if !n.Ready {
			t.Fatalf("node %s not Ready after start", n.Name)
		}
	}
	// Start from Alert: no StartRequested transition, the worker carries on
	// and OperationSucceeded brings the cluster back to Running.
	if err := e.sim.SetClusterState(id, model.ClusterAlert); err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(start())
	if st := e.cluster(id).State; st != model.ClusterRunning {
		t.Fatalf("start from Alert: %s", st)
	}
}

func TestDeleteStateRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	id := e.createCluster(e.createParams("deletestate", 1))
	if err := e.sim.SetClusterState(id, model.ClusterScaling); err != nil {
		t.Fatal(err)
	}
	r, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(id))
	if err != nil {
		t.Fatal(err)
	}
	if code, text := e.mustFail(r.JobID); code != 530 || text != "Cannot perform delete operation on cluster : deletestate in state: Scaling" {
		t.Fatalf("delete while Scaling: %d %q", code, text)
	}
	if err := e.sim.SetClusterState(id, model.ClusterError); err != nil {
		t.Fatal(err)
	}
	r, err = e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(id))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(r.JobID)
	// The id still resolves but lists nothing.
	_, body := e.adminCall("listKubernetesClusters", url.Values{"id": {id}})
	if got := inner(t, body, "listkubernetesclustersresponse"); len(got) != 0 {
		t.Fatalf("removed cluster listed: %v", got)
	}
}

func TestGetKubernetesClusterConfigStates(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	id := e.createCluster(e.createParams("config", 1))
	if err := e.sim.SetClusterState(id, model.ClusterStarting); err != nil {
		t.Fatal(err)
	}
	status, body := e.adminCall("getKubernetesClusterConfig", url.Values{"id": {id}})
	assertError(t, status, inner(t, body, "getkubernetesclusterconfigresponse"), 530, 4250,
		"Setup is in progress for Kubernetes cluster : config, config not available at this moment")
	if err := e.sim.FailJobStep("create", "kubeconfig", 1, ""); err != nil {
		t.Fatal(err)
	}
	r, err := e.cs.Kubernetes.CreateKubernetesCluster(e.createParams("noconfig", 1))
	if err != nil {
		t.Fatal(err)
	}
	code, text := e.mustFail(r.JobID)
	if code != 530 || text != "Failed to setup Kubernetes cluster : noconfig in usable state as unable to retrieve kube-config for the cluster" {
		t.Fatalf("kubeconfig failure: %d %q", code, text)
	}
	if st := e.cluster(r.Id).State; st != model.ClusterAlert {
		t.Fatalf("a kubeconfig failure leaves Alert, got %s", st)
	}
	status, body = e.adminCall("getKubernetesClusterConfig", url.Values{"id": {r.Id}})
	assertError(t, status, inner(t, body, "getkubernetesclusterconfigresponse"), 530, 4250,
		"Config not found for Kubernetes cluster : noconfig")
}
