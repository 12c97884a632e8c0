package simulator

import (
	"slices"
	"strings"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// scaleWith starts a scaleKubernetesCluster job with the parameters set by
// set and returns its job id.
func (e *testEnv) scaleWith(id string, set func(p *cloudstack.ScaleKubernetesClusterParams)) string {
	e.t.Helper()
	p := e.cs.Kubernetes.NewScaleKubernetesClusterParams(id)
	set(p)
	r, err := e.cs.Kubernetes.ScaleKubernetesCluster(p)
	if err != nil {
		e.t.Fatalf("scaleKubernetesCluster: %v", err)
	}
	return r.JobID
}

// vmOfferings maps the cluster's VM names to their serviceofferingname.
func vmOfferings(e *testEnv, id string) map[string]string {
	out := map[string]string{}
	for _, v := range e.cluster(id).Virtualmachines {
		out[v.Name] = v.Serviceofferingname
	}
	return out
}

const kvmRefusal = " failed, scaling Kubernetes cluster with running VMs on hypervisor KVM is not supported!"

func TestScaleSizeOnlyAppliesDefaultOfferingToEveryRole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	// serviceofferingid medium, the workers on large: a size-only scale asks
	// every node type for the cluster's offering (DEFAULT), so the workers
	// need an offering change, which KVM refuses for running VMs.
	p := e.createParams("default", 2)
	p.SetNodeofferings(map[string]string{"worker": e.info.LargeServiceOfferingID})
	id := e.createCluster(p)
	for name, off := range vmOfferings(e, id) {
		want := "cks-medium"
		if strings.Contains(name, "-node-") {
			want = "cks-large"
		}
		if off != want {
			t.Fatalf("VM %s on %s, want %s", name, off, want)
		}
	}
	lp := e.cs.VirtualMachine.NewListVirtualMachinesParams()
	lp.SetId(vmIDByRole(e, id, "-node-"))
	if vms, err := e.cs.VirtualMachine.ListVirtualMachines(lp); err != nil || vms.Count != 1 ||
		vms.VirtualMachines[0].Serviceofferingid != e.info.LargeServiceOfferingID || vms.VirtualMachines[0].Serviceofferingname != "cks-large" {
		t.Fatalf("listVirtualMachines serviceofferingid: %+v %v", vms, err)
	}

	// Scale-up: the offering change comes first and is refused before the
	// cluster moves to Scaling.
	code, text := e.mustFail(e.scale(id, 3))
	if code != 530 || text != "Scaling Kubernetes cluster : default"+kvmRefusal {
		t.Fatalf("size-only scale-up: %d %q", code, text)
	}
	if cl := e.cluster(id); cl.State != model.ClusterRunning || cl.Size != 2 || len(workerVMs(e, id)) != 2 {
		t.Fatalf("after the refused scale-up: %s size %d workers %d", cl.State, cl.Size, len(workerVMs(e, id)))
	}

	// nodeofferings with every role at its current offering avoid it.
	e.mustSucceed(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
		p.SetSize(3)
		p.SetNodeofferings(map[string]string{"worker": e.info.LargeServiceOfferingID, "control": e.info.ServiceOfferingID})
	}))
	if cl := e.cluster(id); cl.State != model.ClusterRunning || cl.Size != 3 || cl.Workerofferingname != "cks-large" {
		t.Fatalf("scale with the current offerings: %s size %d worker offering %s", cl.State, cl.Size, cl.Workerofferingname)
	}

	// Scale-down: the size change comes first (VMs removed, node_count
	// written), then the refused offering change fails the cluster.
	code, text = e.mustFail(e.scale(id, 2))
	if code != 530 || text != "Scaling Kubernetes cluster : default"+kvmRefusal {
		t.Fatalf("size-only scale-down: %d %q", code, text)
	}
	if cl := e.cluster(id); cl.State != model.ClusterAlert || cl.Size != 2 || len(workerVMs(e, id)) != 2 {
		t.Fatalf("after the size-only scale-down: %s size %d workers %d, want Alert, 2, 2", cl.State, cl.Size, len(workerVMs(e, id)))
	}
}

func TestScaleSizeOnlyOfferingHazardSetUpByAdmin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.createCluster(e.createParams("hazard", 1))
	if err := e.sim.SetNodeOffering(id, "control", e.info.LargeServiceOfferingID); err != nil {
		t.Fatal(err)
	}
	if offs := vmOfferings(e, id); offs[e.cluster(id).Virtualmachines[0].Name] != "cks-large" {
		t.Fatalf("control VM offering %v", offs)
	}
	if cl := e.cluster(id); cl.Controlofferingid != "" || cl.Serviceofferingname != "cks-medium" {
		t.Fatalf("the cluster's records changed: control %q, service %s", cl.Controlofferingid, cl.Serviceofferingname)
	}
	for _, v := range e.sim.DumpState().VMs {
		if want := map[string]string{"control": e.info.LargeServiceOfferingID, "worker": e.info.ServiceOfferingID}[v.Role]; v.ServiceOfferingID != want {
			t.Fatalf("dumped VM %s (%s) on %s, want %s", v.Name, v.Role, v.ServiceOfferingID, want)
		}
	}
	code, text := e.mustFail(e.scale(id, 2))
	if code != 530 || text != "Scaling Kubernetes cluster : hazard"+kvmRefusal {
		t.Fatalf("size-only scale with the control node on another offering: %d %q", code, text)
	}
	if cl := e.cluster(id); cl.State != model.ClusterRunning || cl.Size != 1 {
		t.Fatalf("state %s size %d, want Running 1", cl.State, cl.Size)
	}
	e.mustSucceed(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
		p.SetSize(2)
		p.SetNodeofferings(map[string]string{"control": e.info.LargeServiceOfferingID, "worker": e.info.ServiceOfferingID})
	}))
	if cl := e.cluster(id); cl.State != model.ClusterRunning || cl.Size != 2 {
		t.Fatalf("state %s size %d, want Running 2", cl.State, cl.Size)
	}
	for _, bad := range []struct{ cluster, role, offering string }{
		{id, "gpu", e.info.LargeServiceOfferingID}, {id, "worker", "nope"}, {"nope", "worker", e.info.LargeServiceOfferingID},
	} {
		if err := e.sim.SetNodeOffering(bad.cluster, bad.role, bad.offering); err == nil {
			t.Fatalf("SetNodeOffering%v accepted", bad)
		}
	}
	status, body := adminRequest(t, e.info.AdminURL, "POST", "vm/offering",
		map[string]any{"vm_id": vmIDByRole(e, id, "-node-"), "offering_id": e.info.LargeServiceOfferingID})
	if status != 200 || !slices.Contains(mapValues(vmOfferings(e, id)), "cks-large") {
		t.Fatalf("vm/offering: %d %s", status, body)
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func TestScaleOfferingValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	p := e.createParams("offers", 1)
	p.SetServiceofferingid(e.info.LargeServiceOfferingID)
	id := e.createCluster(p)
	code, text := e.mustFail(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
		p.SetServiceofferingid(e.info.ServiceOfferingID)
	}))
	if code != 530 || text != "Kubernetes cluster cannot be scaled down for service offering. Service offering : cks-medium offers lesser resources as compared to service offering : cks-large of Kubernetes cluster : offers" {
		t.Fatalf("smaller offering on a Running cluster: %d %q", code, text)
	}
	code, text = e.mustFail(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
		p.SetNodeofferings(map[string]string{"worker": e.info.SmallServiceOfferingID})
	}))
	if code != 530 || text != "Kubernetes cluster : offers cannot be scaled with service offering : cks-small, Kubernetes cluster template(CoreOS) needs minimum 2 vCPUs and 2048 MB RAM" {
		t.Fatalf("too small an offering: %d %q", code, text)
	}
	// The same offering is no change, no error.
	e.mustSucceed(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
		p.SetServiceofferingid(e.info.LargeServiceOfferingID)
	}))
	if cl := e.cluster(id); cl.State != model.ClusterRunning {
		t.Fatalf("state %s", cl.State)
	}
}

func TestScaleNodeIDsWithControlAndEtcdOfferings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	p := e.createParams("nodeids", 3)
	p.SetEtcdnodes(1)
	id := e.createCluster(p)
	cl := e.cluster(id)
	var workers, controls []string
	for _, v := range cl.Virtualmachines {
		switch {
		case strings.Contains(v.Name, "-node-"):
			workers = append(workers, v.Id)
		case strings.Contains(v.Name, "-control-"):
			controls = append(controls, v.Id)
		}
	}
	refused := []struct {
		name string
		set  func(p *cloudstack.ScaleKubernetesClusterParams)
		text string
	}{
		{"size", func(p *cloudstack.ScaleKubernetesClusterParams) { p.SetNodeids(workers[:1]); p.SetSize(2) },
			"nodeids can not be passed along with clustersize or service offering"},
		{"serviceofferingid", func(p *cloudstack.ScaleKubernetesClusterParams) {
			p.SetNodeids(workers[:1])
			p.SetServiceofferingid(e.info.ServiceOfferingID)
		}, "nodeids can not be passed along with clustersize or service offering"},
		{"worker entry", func(p *cloudstack.ScaleKubernetesClusterParams) {
			p.SetNodeids(workers[:1])
			p.SetNodeofferings(map[string]string{"worker": e.info.ServiceOfferingID})
		}, "nodeids can not be passed along with clustersize or service offering"},
		{"all controls", func(p *cloudstack.ScaleKubernetesClusterParams) { p.SetNodeids(controls) },
			"Can not remove all control nodes from a cluster"},
		{"all nodes", func(p *cloudstack.ScaleKubernetesClusterParams) { p.SetNodeids(workers) },
			"Can not remove all nodes from a cluster"},
		{"autoscaling", func(p *cloudstack.ScaleKubernetesClusterParams) {
			p.SetNodeids(workers[:1])
			p.SetAutoscalingenabled(true)
			p.SetMinsize(1)
			p.SetMaxsize(3)
		}, "Autoscaling can not be passed along with nodeids or clustersize"},
	}
	for _, c := range refused {
		if code, text := e.mustFail(e.scaleWith(id, c.set)); code != 530 || text != c.text {
			t.Errorf("nodeids with %s: %d %q, want %q", c.name, code, text, c.text)
		}
	}
	other := e.createCluster(e.createParams("other", 1))
	if code, text := e.mustFail(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
		p.SetNodeids([]string{vmIDByRole(e, other, "-node-")})
	})); code != 530 || text != "Invalid node ids" {
		t.Fatalf("a VM of another cluster: %d %q", code, text)
	}

	// Control and etcd entries may come with nodeids.
	e.mustSucceed(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
		p.SetNodeids(workers[:2])
		p.SetNodeofferings(map[string]string{"control": e.info.ServiceOfferingID, "etcd": e.info.ServiceOfferingID})
	}))
	cl = e.cluster(id)
	if cl.State != model.ClusterRunning || cl.Size != 1 || !slices.Equal(workerIDs(e, id), workers[2:]) {
		t.Fatalf("after removing two workers by id: %s size %d workers %v, want %v", cl.State, cl.Size, workerIDs(e, id), workers[2:])
	}
	if got, want := forwardPorts(e.portForwards(cl.Ipaddressid)), []string{"2222->22", "2223->22", "50000->22"}; !slices.Equal(got, want) {
		t.Fatalf("PFs after the scale %v, want %v", got, want)
	}
}

func TestScaleRefusesInconsistentVMMap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.createCluster(e.createParams("unstable", 3))
	workers := workerIDs(e, id)
	if err := e.sim.DeleteMapRow(id, workers[2]); err != nil {
		t.Fatal(err)
	}
	const unstable = "Scaling failed for Kubernetes cluster : unstable, it is in unstable state as not enough existing VM instances found"
	for _, c := range []struct {
		name string
		set  func(p *cloudstack.ScaleKubernetesClusterParams)
	}{
		{"size up", func(p *cloudstack.ScaleKubernetesClusterParams) { p.SetSize(4) }},
		{"size down", func(p *cloudstack.ScaleKubernetesClusterParams) { p.SetSize(1) }},
		{"nodeids", func(p *cloudstack.ScaleKubernetesClusterParams) { p.SetNodeids(workers[:1]) }},
	} {
		if code, text := e.mustFail(e.scaleWith(id, c.set)); code != 530 || text != unstable {
			t.Errorf("%s with map rows < C+W+E: %d %q", c.name, code, text)
		}
		if cl := e.cluster(id); cl.State != model.ClusterRunning || cl.Size != 3 {
			t.Fatalf("%s: state %s size %d, want Running 3 (no change)", c.name, cl.State, cl.Size)
		}
	}
	if got := len(e.sim.DumpState().VMs); got != 4 {
		t.Fatalf("%d VMs, want 4 (nothing created or removed)", got)
	}
	// Stopped: a size change is refused by the manager, a nodeids removal by
	// the map check, and the state stays.
	r, err := e.cs.Kubernetes.StopKubernetesCluster(e.cs.Kubernetes.NewStopKubernetesClusterParams(id))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(r.JobID)
	if code, text := e.mustFail(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) { p.SetNodeids(workers[:1]) })); code != 530 || text != unstable {
		t.Fatalf("nodeids on a Stopped cluster: %d %q", code, text)
	}
	if st := e.cluster(id).State; st != model.ClusterStopped {
		t.Fatalf("state %s, want Stopped", st)
	}
}
