package clusterops

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// A scale-down job that fails right after removing the worker VM: the
// engine returns the job error, repairs the rules the failure left stale
// and reports the real cluster; Recover then converges.
func TestScaleFailingAfterVMRemoval(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{simulator.Profile42211, simulator.ProfileFixed} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, profile)
			id := env.createCluster("fault-after-removal", 3, 2)
			eng := env.engine(Options{})
			if err := env.sim.FailJobStep("scale-down", "vm-removed", 1, ""); err != nil {
				t.Fatal(err)
			}

			rep, err := eng.Scale(env.ctx(), id, 1)
			var cerr *cloudstack.Error
			if !errors.As(err, &cerr) || cerr.Kind() != cloudstack.KindBusiness || !strings.Contains(err.Error(), "failed to remove VM") {
				t.Fatalf("Scale = %v, want the 530 job failure\n%s", err, rep)
			}
			failed := rep.StepsOf(StepScaled)
			if len(failed) != 1 || !strings.Contains(failed[0].Message, "from 2 to 1 worker(s) failed") {
				t.Errorf("scale step = %+v", failed)
			}
			text := rep.String()
			for _, want := range []string{"deleted stale node SSH firewall range 2222-2224", "created missing node SSH firewall range 2222-2223"} {
				if !strings.Contains(text, want) {
					t.Errorf("report lacks %q:\n%s", want, text)
				}
			}
			if rep.Cluster == nil || rep.Cluster.State != "Alert" || rep.Cluster.Size != 2 || MapWorkerCount(rep.Cluster) != 1 {
				t.Fatalf("report cluster = %+v, want the real Alert, size 2, one worker", rep.Cluster)
			}

			s, err := eng.Snapshot(env.ctx(), id)
			if err != nil {
				t.Fatal(err)
			}
			if s.Cluster.Size != 2 || len(s.Cluster.VirtualMachines) != 5 || !NeedsRecovery(&s.Cluster) {
				t.Errorf("snapshot: size %d, %d VMs, want size 2 and 5 VMs", s.Cluster.Size, len(s.Cluster.VirtualMachines))
			}
			if len(s.Classification.Missing) != 0 || len(s.Classification.Stale) != 0 {
				t.Errorf("rules after the repair: missing %v, stale %v", s.Classification.Missing, s.Classification.Stale)
			}
			env.assertSSH(id, &s.Cluster)

			// The cluster is in Alert: Scale refuses and points to Recover.
			_, err = eng.Scale(env.ctx(), id, 1)
			var need *RecoveryNeededError
			if !errors.As(err, &need) {
				t.Fatalf("Scale of an Alert cluster = %v, want *RecoveryNeededError", err)
			}

			rec, err := env.engine(Options{AllowRestartForRecovery: true}).Recover(env.ctx(), id, 1)
			if err != nil {
				t.Fatalf("Recover: %v\n%s", err, rec)
			}
			c := env.assertSeedRules(id)
			if c.State != "Running" || c.Size != 1 {
				t.Fatalf("after Recover: %s size %d", c.State, c.Size)
			}
		})
	}
}

// CheckScale reports the etcd hazard a scale-up by another client leaves
// (the node range is re-created after the etcd rules; the engine's own
// scale moves them after it again) and changes nothing.
func TestCheckScaleAfterScaleUp(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("check-scale", 3, 1)
	eng := env.engine(Options{})
	fresh, err := eng.CheckScale(env.ctx(), id)
	if err != nil || len(fresh.Hazards) != 0 {
		t.Fatalf("fresh cluster: hazards %v, err %v", fresh.Hazards, err)
	}
	if _, err := eng.Scale(env.ctx(), id, 2); err != nil {
		t.Fatalf("Scale to 2: %v", err)
	}
	if after, err := eng.CheckScale(env.ctx(), id); err != nil || len(after.Hazards) != 0 {
		t.Fatalf("after the engine's scale: hazards %v, err %v", after.Hazards, err)
	}
	if err := env.rawScale(id, 3); err != nil {
		t.Fatalf("out-of-band scale to 3: %v", err)
	}
	before, err := env.sim.Dump()
	if err != nil {
		t.Fatal(err)
	}

	check, err := eng.CheckScale(env.ctx(), id)
	if err != nil {
		t.Fatalf("CheckScale: %v", err)
	}
	if check.Err() != nil || len(check.Blocking) != 0 || len(check.Repairs) != 0 || check.State != "Running" ||
		check.Network != rules.NetworkIsolated {
		t.Errorf("check = %+v", check)
	}
	if len(check.Hazards) != 3 || len(check.Fixable) != 3 {
		t.Fatalf("hazards = %+v, want the three etcd firewall rules", check.Hazards)
	}
	for i, h := range check.Hazards {
		if h.Kind != rules.HazardWrongPick || h.Owner != rules.OwnerCKS || h.Purpose != rules.PurposeEtcdFirewall ||
			h.Rule.StartPort != 50000+i || !strings.Contains(h.Explanation, "#14159") {
			t.Errorf("hazard %d = %+v", i, h)
		}
	}
	after, err := env.sim.Dump()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("CheckScale changed the simulator state")
	}
}
