package clusterops

import (
	"errors"
	"maps"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

func TestNodeOfferingFallsBackToTheServiceOffering(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                    string
		c                       cloudstack.Cluster
		control, worker, etcdOf string
	}{
		{"no columns", cloudstack.Cluster{ServiceOfferingID: "s", EtcdNodes: 1}, "s", "s", "s"},
		{"own columns", cloudstack.Cluster{ServiceOfferingID: "s", ControlOfferingID: "c", WorkerOfferingID: "w", EtcdOfferingID: "e", EtcdNodes: 1}, "c", "w", "e"},
		{"no etcd nodes", cloudstack.Cluster{ServiceOfferingID: "s"}, "s", "s", ""},
		{"etcd column without etcd nodes", cloudstack.Cluster{ServiceOfferingID: "s", EtcdOfferingID: "e"}, "s", "s", "e"},
		{"no service offering", cloudstack.Cluster{WorkerOfferingID: "w"}, "", "w", ""},
	} {
		got := map[string]string{"control": NodeOffering(&tc.c, "control"), "worker": NodeOffering(&tc.c, "worker"), "etcd": NodeOffering(&tc.c, "etcd")}
		want := map[string]string{"control": tc.control, "worker": tc.worker, "etcd": tc.etcdOf}
		if !maps.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tc.name, got, want)
		}
	}
}

// A size change by size names the worker offering, which CloudStack
// records; a scale-down by nodeids records none.
func TestScaleOfferingWrites(t *testing.T) {
	t.Parallel()
	size := int64(2)
	if got := scaleOfferingWrites(cloudstack.ScaleClusterParams{Size: &size, NodeOfferings: map[string]string{"worker": "w"}}); !maps.Equal(got, OfferingWrites{"worker": "w"}) {
		t.Errorf("size with a worker entry writes %v", got)
	}
	if got := scaleOfferingWrites(cloudstack.ScaleClusterParams{NodeIDs: []string{"x"}, NodeOfferings: map[string]string{"control": "c", "etcd": "e"}}); len(got) != 0 {
		t.Errorf("nodeids write %v", got)
	}
	if got := scaleOfferingWrites(cloudstack.ScaleClusterParams{Size: &size}); len(got) != 0 {
		t.Errorf("size alone writes %v", got)
	}
}

func TestCheckPlannedWrites(t *testing.T) {
	t.Parallel()
	c := &cloudstack.Cluster{ID: "k", ServiceOfferingID: "s"}
	for _, tc := range []struct {
		name            string
		planned, writes OfferingWrites
		ok              bool
	}{
		{"nothing planned", nil, OfferingWrites{"worker": "w"}, true},
		{"the planned write", OfferingWrites{"worker": "w"}, OfferingWrites{"worker": "w"}, true},
		{"no write, planned as it is", OfferingWrites{"worker": "s"}, nil, true},
		{"another write", OfferingWrites{"worker": "s"}, OfferingWrites{"worker": "w"}, false},
		{"no write, planned another", OfferingWrites{"worker": "w"}, nil, false},
	} {
		err := checkPlannedWrites(c, tc.planned, tc.writes)
		var pe *PlannedWritesError
		if ok := err == nil; ok != tc.ok || (err != nil && !errors.As(err, &pe)) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// A scale whose nodes changed offering since the plan stops before any
// change, naming the offering it would record.
func TestScaleRefusesOtherWritesThanPlanned(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Profile42211)
	id := e.createCluster("planned", 1, 1)
	eng := e.engine()
	s, err := eng.Snapshot(e.ctx(), id, Intent{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = eng.scaleSnapshot(e.ctx(), s, 2, Intent{}, OfferingWrites{"worker": e.Info.LargeServiceOfferingID})
	var pe *PlannedWritesError
	if !errors.As(err, &pe) || pe.Now["worker"] != e.Info.ServiceOfferingID {
		t.Fatalf("scale with another planned worker offering: %v", err)
	}
	if c := e.Cluster(id); c.Size != 1 || c.WorkerOfferingID != "" {
		t.Fatalf("the refused scale changed the cluster: size %d, worker offering %q", c.Size, c.WorkerOfferingID)
	}
	rep, err := eng.Update(e.ctx(), id, UpdateRequest{Size: ptr(int64(2)), PlannedOfferings: OfferingWrites{"worker": e.Info.ServiceOfferingID}})
	if err != nil {
		t.Fatalf("scale as planned: %v (%+v)", err, rep)
	}
	if c := e.Cluster(id); c.Size != 2 || c.WorkerOfferingID != e.Info.ServiceOfferingID {
		t.Fatalf("after the planned scale: size %d, worker offering %q", c.Size, c.WorkerOfferingID)
	}
}

// Turning the autoscaler on names the workers' offering, so that CloudStack
// does not move control nodes on another offering to the service offering
// (which KVM refuses for running VMs).
func TestAutoscalerKeepsEveryNodeOffering(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Profile42211)
	id := e.createClusterWith(cloudstack.CreateClusterParams{Name: "autoscaled", Size: 1,
		NodeOfferings: map[string]string{"control": e.Info.LargeServiceOfferingID}})
	_, err := e.engine().Update(e.ctx(), id, UpdateRequest{Autoscaling: &Autoscaling{MinSize: 1, MaxSize: 3}})
	if err != nil {
		t.Fatalf("turning the autoscaler on: %v", err)
	}
	c := e.Cluster(id)
	if !c.AutoscalingEnabled || c.ControlOfferingID != e.Info.LargeServiceOfferingID || c.WorkerOfferingID != "" {
		t.Fatalf("after the autoscaler: enabled %t, control %q, worker %q", c.AutoscalingEnabled, c.ControlOfferingID, c.WorkerOfferingID)
	}
}

func ptr[T any](v T) *T { return &v }

// ClosedSSH names the nodes whose forward, or whose firewall range, is
// missing, and not those CKS's single-port etcd rules still open.
func TestClosedSSH(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Profile42211)
	id := e.createCluster("closed", 1, 1)
	eng := e.engine()
	obs, err := eng.Observe(e.ctx(), id, Intent{})
	if err != nil {
		t.Fatal(err)
	}
	if closed := obs.ClosedSSH(); len(closed) != 0 {
		t.Fatalf("CKS's own layout: closed %v, want none (the single-port etcd rule still opens the etcd node)", closed)
	}
	c := e.Cluster(id)
	worker := e.NthWorker(c, 0)
	e.DeleteForward(c, 2223)
	obs, err = eng.Observe(e.ctx(), id, Intent{})
	if err != nil {
		t.Fatal(err)
	}
	if closed := obs.ClosedSSH(); len(closed) != 1 || closed[0] != worker.Name {
		t.Fatalf("closed %v, want the worker %s whose forward is gone", closed, worker.Name)
	}
}
