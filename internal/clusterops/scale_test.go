package clusterops

import (
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// Seed 000 through the engine: create 1 control + 3 etcd + 1 worker, scale
// to 2 and back to 1. On 4.22.1.1 the second scale breaks the cluster unless
// the etcd firewall rules are moved after the node range first.
func TestScaleSeed000(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{simulator.Profile42211, simulator.ProfileFixed} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, profile)
			id := env.createCluster("cks-etcd-minimal-20260912", 3, 1)
			eng := env.engine(Options{})

			up, err := eng.Scale(env.ctx(), id, 2)
			if err != nil {
				t.Fatalf("Scale to 2: %v\n%s", err, up)
			}
			// A fresh cluster needs nothing before the scale; the server's
			// rebuild re-creates the node range after the etcd rules, which
			// the engine moves after it again.
			assertNeutralisedAfterScale(t, up)
			if r := up.StepsOf(StepRepaired); len(r) != 0 {
				t.Errorf("scale-up of a fresh cluster needed repairs:\n%s", up)
			}
			if up.Cluster == nil || up.Cluster.Size != 2 || up.Cluster.State != "Running" {
				t.Fatalf("after scale-up the report holds %+v, want Running size 2", up.Cluster)
			}
			env.assertHazardFree(id)

			down, err := eng.Scale(env.ctx(), id, 1)
			if err != nil {
				t.Fatalf("Scale to 1: %v\n%s", err, down)
			}
			assertNeutralisedAfterScale(t, down)
			if r := down.StepsOf(StepRepaired); len(r) != 0 {
				t.Errorf("a correct scale-down needed repairs:\n%s", down)
			}
			env.assertHazardFree(id)

			c := env.assertSeedRules(id)
			if c.State != "Running" || c.Size != 1 || MapWorkerCount(c) != 1 {
				t.Fatalf("cluster %s size %d with %d workers, want Running size 1", c.State, c.Size, MapWorkerCount(c))
			}
			if down.Cluster == nil || down.Cluster.Size != 1 || len(down.Cluster.VirtualMachines) != 5 {
				t.Errorf("report cluster = %+v, want the read-back size 1 with 5 VMs", down.Cluster)
			}
			env.assertSSH(id, c)
		})
	}
}

// assertNeutralisedAfterScale checks that the report re-created the three
// etcd firewall rules of a seed 000 cluster after the scale, and only then.
func assertNeutralisedAfterScale(t *testing.T, rep Report) {
	t.Helper()
	scaledAt := -1
	var neutralised []Step
	for i, st := range rep.Steps {
		switch st.Kind {
		case StepScaled:
			scaledAt = i
		case StepNeutralised:
			if scaledAt < 0 {
				t.Errorf("step %d neutralised a rule before the scale: %s", i, st.Message)
			}
			neutralised = append(neutralised, st)
		}
	}
	if len(neutralised) != 3 {
		t.Fatalf("neutralised %d rules after the scale, want the 3 etcd firewall rules:\n%s", len(neutralised), rep)
	}
	for i, st := range neutralised {
		port := []string{"50000", "50001", "50002"}[i]
		if !strings.Contains(st.Message, "etcd SSH firewall rule "+port+" ") ||
			!strings.Contains(st.Message, "sorts after the node SSH range") ||
			!strings.Contains(st.Message, "node SSH range had been re-created after it") || st.RuleID == "" || st.PreviousRuleID == "" {
			t.Errorf("neutralise step %d = %+v", i, st)
		}
	}
}

// After the engine's scale any client may scale the cluster, even the
// plain API on 4.22.1.1, which would otherwise revoke etcd rule 50000
// instead of the node range (#14159). This failed before the engine
// neutralised the hazards again after the scale.
func TestScaleLeavesClusterSafeForOtherClients(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("cks-etcd-minimal-20260912", 3, 1)
	if rep, err := env.engine(Options{}).Scale(env.ctx(), id, 2); err != nil {
		t.Fatalf("Scale to 2: %v\n%s", err, rep)
	}
	if err := env.rawScale(id, 1); err != nil {
		t.Fatalf("a plain API scale after the engine's scale failed: %v", err)
	}
	c := env.assertSeedRules(id)
	if c.State != "Running" || c.Size != 1 {
		t.Fatalf("cluster %s size %d, want Running size 1", c.State, c.Size)
	}
	env.assertSSH(id, c)
}

// Repair leaves no hazard either: re-creating a missing node range puts it
// after the etcd rules, which Repair then moves after it.
func TestRepairNeutralisesTheRangeItRecreates(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("repair-range", 3, 1)
	for _, fw := range env.firewallRules(env.cluster(id).IPAddressID) {
		if fw.StartPort == 2222 {
			if err := env.sim.DeleteRule(fw.ID); err != nil {
				t.Fatal(err)
			}
		}
	}

	rep, err := env.engine(Options{}).Repair(env.ctx(), id)
	if err != nil {
		t.Fatalf("Repair: %v\n%s", err, rep)
	}
	if r := rep.StepsOf(StepRepaired); len(r) != 1 || !strings.HasPrefix(r[0].Message, "created missing node SSH firewall range 2222-2223") {
		t.Errorf("repairs = %+v", r)
	}
	if n := len(rep.StepsOf(StepNeutralised)); n != 3 {
		t.Errorf("neutralised %d rules, want the 3 etcd firewall rules:\n%s", n, rep)
	}
	env.assertHazardFree(id)
	if err := env.rawScale(id, 2); err != nil {
		t.Fatalf("a plain API scale after Repair failed: %v", err)
	}
}

// With several control nodes CloudStack's own scale-down indexes the worker
// list wrongly (spec §2.6); the engine names the workers to remove instead,
// newest first, so the VM map and the size stay in step.
func TestScaleDownWithSeveralControlNodes(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.ProfileFixed)
	id := env.createClusterWith(cloudstack.CreateClusterParams{Name: "ha", ControlNodes: 2, Size: 3})
	before := env.cluster(id)
	newest := before.VirtualMachines[len(before.VirtualMachines)-1].ID

	rep, err := env.engine(Options{}).Scale(env.ctx(), id, 2)
	if err != nil {
		t.Fatalf("Scale: %v\n%s", err, rep)
	}
	if s := rep.StepsOf(StepScaled); len(s) != 1 || !strings.Contains(s[0].Message, newest) {
		t.Errorf("scale step = %+v, want the newest worker %s named", s, newest)
	}
	c := env.cluster(id)
	if c.State != "Running" || c.Size != 2 || MapWorkerCount(c) != 2 {
		t.Fatalf("cluster %s size %d with %d workers, want Running size 2 with 2", c.State, c.Size, MapWorkerCount(c))
	}
	for _, vm := range c.VirtualMachines {
		if vm.ID == newest {
			t.Errorf("the newest worker %s is still in the map", newest)
		}
	}
}

// A missing node range is re-created before the scale, which puts it after
// the etcd firewall rules: the engine must look for hazards again after the
// repair, or 4.22.1.1 would revoke etcd rule 50000 instead of the range.
func TestScaleRepairsMissingRangeThenNeutralises(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("missing-range", 3, 1)
	ipID := env.cluster(id).IPAddressID
	for _, fw := range env.firewallRules(ipID) {
		if fw.StartPort == 2222 {
			if err := env.sim.DeleteRule(fw.ID); err != nil {
				t.Fatal(err)
			}
		}
	}

	rep, err := env.engine(Options{}).Scale(env.ctx(), id, 2)
	if err != nil {
		t.Fatalf("Scale: %v\n%s", err, rep)
	}
	if r := rep.StepsOf(StepRepaired); len(r) != 1 || !strings.HasPrefix(r[0].Message, "created missing node SSH firewall range 2222-2223") {
		t.Errorf("repairs = %+v", r)
	}
	// Three before the scale (the repaired range came after the etcd
	// rules) and three after it (the server re-created the range).
	if n := len(rep.StepsOf(StepNeutralised)); n != 6 {
		t.Errorf("neutralised %d rules, want 6:\n%s", n, rep)
	}
	env.assertHazardFree(id)
	c := env.cluster(id)
	if c.State != "Running" || c.Size != 2 {
		t.Fatalf("cluster %s size %d, want Running size 2", c.State, c.Size)
	}
	s, err := env.engine(Options{}).Snapshot(env.ctx(), id)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := s.NodeSSHRange(); !ok || r.EndPort != 2224 || len(s.Classification.Missing)+len(s.Classification.Stale) != 0 {
		t.Errorf("after scale: range %+v, missing %v, stale %v", r, s.Classification.Missing, s.Classification.Stale)
	}
}

// A project's rules are listed only with its projectid: the engine sees
// them and scales a project cluster like any other, seed 000 included.
func TestScaleProjectCluster(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createClusterWith(cloudstack.CreateClusterParams{Name: "prj-etcd", EtcdNodes: 3, Size: 1,
		Ownership: cloudstack.Ownership{ProjectID: env.info.ProjectID}})
	eng := env.engine(Options{})

	s, err := eng.Snapshot(env.ctx(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Rules) != 11 || len(s.Classification.Missing) != 0 || len(s.Classification.Stale) != 0 {
		t.Fatalf("snapshot of the project cluster: %d rules, missing %v, stale %v", len(s.Rules),
			s.Classification.Missing, s.Classification.Stale)
	}
	for _, size := range []int64{2, 1} {
		rep, err := eng.Scale(env.ctx(), id, size)
		if err != nil {
			t.Fatalf("Scale to %d: %v\n%s", size, err, rep)
		}
		if r := rep.StepsOf(StepRepaired); len(r) != 0 {
			t.Errorf("scale to %d repaired rules:\n%s", size, rep)
		}
	}
	env.assertHazardFree(id)
	s, err = eng.Snapshot(env.ctx(), id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Cluster.State != "Running" || s.Cluster.Size != 1 || len(s.Rules) != 11 ||
		len(s.Classification.Missing) != 0 || len(s.Classification.Stale) != 0 {
		t.Fatalf("after the scales: %s size %d, %d rules, missing %v, stale %v", s.Cluster.State, s.Cluster.Size,
			len(s.Rules), s.Classification.Missing, s.Classification.Stale)
	}
}
