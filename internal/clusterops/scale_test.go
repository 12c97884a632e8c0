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
			if n := len(up.StepsOf(StepNeutralised)) + len(up.StepsOf(StepRepaired)); n != 0 {
				t.Errorf("scale-up of a fresh cluster changed rules:\n%s", up)
			}
			if up.Cluster == nil || up.Cluster.Size != 2 || up.Cluster.State != "Running" {
				t.Fatalf("after scale-up the report holds %+v, want Running size 2", up.Cluster)
			}

			down, err := eng.Scale(env.ctx(), id, 1)
			if err != nil {
				t.Fatalf("Scale to 1: %v\n%s", err, down)
			}
			neutralised := down.StepsOf(StepNeutralised)
			if len(neutralised) != 3 {
				t.Fatalf("neutralised %d rules, want the 3 etcd firewall rules:\n%s", len(neutralised), down)
			}
			for i, st := range neutralised {
				port := []string{"50000", "50001", "50002"}[i]
				if !strings.Contains(st.Message, "etcd SSH firewall rule "+port+" ") ||
					!strings.Contains(st.Message, "sorts after the node SSH range") || st.RuleID == "" || st.PreviousRuleID == "" {
					t.Errorf("neutralise step %d = %+v", i, st)
				}
			}
			if r := down.StepsOf(StepRepaired); len(r) != 0 {
				t.Errorf("a correct scale-down needed repairs:\n%s", down)
			}

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
	if n := len(rep.StepsOf(StepNeutralised)); n != 3 {
		t.Errorf("neutralised %d rules, want 3:\n%s", n, rep)
	}
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
