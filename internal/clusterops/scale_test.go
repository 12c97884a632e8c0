package clusterops

import (
	"maps"
	"slices"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// clusterShapes are the clusters the scale sequence runs on: three etcd
// nodes, one etcd node (whose etcd range has two ports), and three etcd
// nodes on a network the user supplied.
var clusterShapes = []struct {
	name        string
	etcd        int64
	userNetwork bool
}{
	{"etcd3", 3, false},
	{"etcd1", 1, false},
	{"etcd3-user-network", 3, true},
}

// TestScaleSequenceKeepsEverySSHPath scales a cluster created in CKS's own
// layout 1→2→1→2→1 through the engine, then three times through the plain
// API as another client (the UI, cmk, the autoscaler) would: every scale
// succeeds and every SSH path works after each one.
func TestScaleSequenceKeepsEverySSHPath(t *testing.T) {
	t.Parallel()
	for _, profile := range simulator.Profiles() {
		for _, shape := range clusterShapes {
			t.Run(profile+"/"+shape.name, func(t *testing.T) {
				t.Parallel()
				env := newEnv(t, profile)
				network := ""
				if shape.userNetwork {
					network = env.Info.IsolatedNetworkID
				}
				id := env.createClusterIn("scale-"+shape.name, network, shape.etcd, 1)
				eng := env.engine()
				for i, size := range []int64{2, 1, 2, 1} {
					rep, err := eng.Scale(env.ctx(), id, size, Intent{})
					if err != nil {
						t.Fatalf("scale %d to %d: %v\n%s", i+1, size, err, rep)
					}
					if rep.Cluster == nil || rep.Cluster.Size != size || rep.Cluster.State != "Running" {
						t.Fatalf("scale %d: report cluster %+v, want Running size %d", i+1, rep.Cluster, size)
					}
					if i == 0 && len(rep.StepsOf(StepHardened)) == 0 {
						t.Errorf("the first scale did not replace CKS's etcd rules:\n%s", rep)
					}
					if i > 0 && rep.Changed() && len(rep.StepsOf(StepHardened, StepRepaired)) > 0 {
						t.Errorf("scale %d of a hardened cluster changed rules:\n%s", i+1, rep)
					}
					c := env.assertHardened(id)
					env.assertSSH(id, c)
				}
				for i, size := range []int64{2, 1, 2} {
					if err := env.Scale(id, size); err != nil {
						t.Fatalf("scale %d by another client to %d: %v", i+1, size, err)
					}
					c := env.Cluster(id)
					if c.State != "Running" || c.Size != size {
						t.Fatalf("after the other client's scale %d: %s size %d", i+1, c.State, c.Size)
					}
					env.assertSSH(id, c)
					env.assertSafe(id)
				}
			})
		}
	}
}

// TestSteadyStateScaleChangesNoRule measures a scale of a hardened cluster:
// one scale job, reads, and no rule job at all. The scale names the worker
// role's current offering and no service offering.
func TestSteadyStateScaleChangesNoRule(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("steady", 3, 1)
	if rep, err := env.engine().Sync(env.ctx(), id, Intent{}); err != nil {
		t.Fatalf("Sync: %v\n%s", err, rep)
	}
	eng, api := env.countingEngine()
	rep, err := eng.Scale(env.ctx(), id, 2, Intent{Network: "Isolated"})
	if err != nil {
		t.Fatalf("Scale: %v\n%s", err, rep)
	}
	if n := api.ruleChanges(); n != 0 {
		t.Errorf("a steady-state scale made %d rule jobs:\n%s", n, rep)
	}
	if n := api.n("listKubernetesClusters", "listFirewallRules", "listPortForwardingRules", "listNetworks"); n != 5 {
		t.Errorf("reads = %d (%v), want 5: the cluster and its rules before, its rules after", n, api.calls)
	}
	if len(api.scales) != 1 {
		t.Fatalf("scale calls = %d, want 1", len(api.scales))
	}
	p := api.scales[0]
	c := env.Cluster(id)
	if p.Size == nil || *p.Size != 2 || p.ServiceOfferingID != "" || len(p.NodeIDs) != 0 ||
		!maps.Equal(p.NodeOfferings, map[string]string{"worker": c.ServiceOfferingID}) {
		t.Errorf("scale parameters = %+v, want size 2 and the worker's own offering only", p)
	}
	if rep.Final == nil || !rep.Final.InSync() {
		t.Errorf("report has no final in-sync snapshot: %+v", rep.Final)
	}
}

// TestScaleKeepsSSHCIDRs narrows the SSH rules: the first scale creates
// the narrowed ranges, and every later scale re-narrows the node range
// CloudStack re-creates open to 0.0.0.0/0, without ever closing it.
func TestScaleKeepsSSHCIDRs(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("narrow", 3, 1)
	in := Intent{SourceCIDRs: rules.SourceCIDRs{SSHCIDRs: []string{"10.0.0.0/8"}}}
	eng, api := env.countingEngine()
	for _, size := range []int64{2, 1} {
		before := api.ruleChanges()
		rep, err := eng.Scale(env.ctx(), id, size, in)
		if err != nil {
			t.Fatalf("Scale to %d: %v\n%s", size, err, rep)
		}
		env.assertHardened(id, "10.0.0.0/8")
		if size == 1 && api.ruleChanges()-before != 2 {
			t.Errorf("re-narrowing took %d rule jobs, want 2 (create the narrowed range, delete the open one):\n%s",
				api.ruleChanges()-before, rep)
		}
	}
}

// TestScaleDownWithSeveralControlNodes removes the newest workers by id:
// the server's own pick is offset by the control node count.
func TestScaleDownWithSeveralControlNodes(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createClusterWith(cloudstack.CreateClusterParams{Name: "ha", ControlNodes: 2, Size: 3})
	eng, api := env.countingEngine()
	rep, err := eng.Scale(env.ctx(), id, 1, Intent{})
	if err != nil {
		t.Fatalf("Scale: %v\n%s", err, rep)
	}
	c := env.Cluster(id)
	if c.Size != 1 || clusterview.MapWorkers(c) != 1 || c.State != "Running" {
		t.Fatalf("cluster %s size %d with %d workers", c.State, c.Size, clusterview.MapWorkers(c))
	}
	if len(api.scales) != 1 || len(api.scales[0].NodeIDs) != 2 || api.scales[0].Size != nil {
		t.Fatalf("scale = %+v, want two node ids and no size", api.scales)
	}
	if _, ok := api.scales[0].NodeOfferings["worker"]; ok {
		t.Errorf("a worker offering was sent with nodeids, which CloudStack refuses: %v", api.scales[0].NodeOfferings)
	}
}

// TestScaleProjectCluster scales a cluster owned by a project, whose rules
// are listed only with projectid.
func TestScaleProjectCluster(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createClusterWith(cloudstack.CreateClusterParams{Name: "prj-etcd", EtcdNodes: 3, Size: 1,
		Ownership: cloudstack.Ownership{ProjectID: env.Info.ProjectID}})
	rep, err := env.engine().Scale(env.ctx(), id, 2, Intent{})
	if err != nil {
		t.Fatalf("Scale: %v\n%s", err, rep)
	}
	if c := env.Cluster(id); c.Size != 2 || c.State != "Running" {
		t.Fatalf("cluster %s size %d", c.State, c.Size)
	}
	if len(rep.StepsOf(StepHardened)) == 0 {
		t.Errorf("the project cluster's etcd rules were not replaced:\n%s", rep)
	}
}

// A role whose VMs run different offerings (after an interrupted offering
// change) takes the cluster's own offering for that role, whatever order
// the map lists the VMs in; a role whose VMs agree keeps theirs.
func TestRoleOfferingsDoNotDependOnMapOrder(t *testing.T) {
	t.Parallel()
	c := etcdCluster()
	c.WorkerOfferingID, c.EtcdOfferingID, c.ServiceOfferingID = "so-worker", "so-etcd", "so-default"
	offerings := map[string]string{"e1": "so-small", "e2": "so-big", "e3": "so-small", "c1": "so-control", "w1": "so-w"}
	for i := range c.VirtualMachines {
		c.VirtualMachines[i].ServiceOfferingID = offerings[c.VirtualMachines[i].ID]
	}
	want := map[string]string{"etcd": "so-etcd", "control": "so-control", "worker": "so-w"}
	for range 2 {
		if got := roleOfferings(c); !maps.Equal(got, want) {
			t.Fatalf("roleOfferings = %v, want %v", got, want)
		}
		slices.Reverse(c.VirtualMachines)
	}
}
