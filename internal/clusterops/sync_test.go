package clusterops

import (
	"errors"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// breakCluster reproduces apache/cloudstack#14159 with plain API calls on
// 4.22.1.1: create 1 control, 3 etcd and 1 worker in CKS's layout, scale to
// 2, then to 1, which fails after expunging the worker.
func breakCluster(t *testing.T, env *testEnv) string {
	t.Helper()
	id := env.createCluster("cks-etcd-minimal", 3, 1)
	if err := env.Scale(id, 2); err != nil {
		t.Fatalf("scale to 2: %v", err)
	}
	err := env.Scale(id, 1)
	if err == nil || !strings.Contains(err.Error(), "unable to update network rules") {
		t.Fatalf("scale to 1 = %v, want the #14159 failure", err)
	}
	return id
}

// Sync makes every SSH path of a cluster #14159 broke work again without a
// start, stop or scale, which CloudStack would refuse or undo, and says what
// only an administrator can do.
func TestSyncRestoresABrokenClusterWithoutLifecycleCalls(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := breakCluster(t, env)
	broken := env.Cluster(id)
	bad := InconsistentMap(broken)
	if broken.State != "Alert" || bad == nil || bad.Workers != 1 || bad.NodeCount != 2 {
		t.Fatalf("broken cluster %s, inconsistency %+v", broken.State, bad)
	}

	eng, api := env.countingEngine()
	rep, err := eng.Sync(env.ctx(), id, Intent{})
	if err != nil {
		t.Fatalf("Sync: %v\n%s", err, rep)
	}
	if n := api.lifecycleCalls(); n != 0 {
		t.Errorf("Sync made %d start, stop or scale calls", n)
	}
	c := env.assertHardened(id)
	env.assertSSH(id, c)
	if c.State != "Alert" || c.Size != 2 {
		t.Errorf("cluster %s size %d: the rules do not change the state or the size", c.State, c.Size)
	}

	// CloudStack refuses to scale it; so does the engine, before any call.
	before := api.lifecycleCalls()
	_, err = eng.Scale(env.ctx(), id, 1, Intent{})
	var inc *vmmap.Inconsistency
	if !errors.As(err, &inc) || !strings.Contains(err.Error(), "node_count = 1") || api.lifecycleCalls() != before {
		t.Fatalf("Scale of the broken cluster = %v, want the *Inconsistency and no call", err)
	}
	// The plain API scale fails too (KubernetesClusterManagerImpl refuses
	// the Alert state first), and the cluster stays in Alert.
	if err := env.Scale(id, 1); err == nil || !strings.Contains(err.Error(), "530") {
		t.Fatalf("raw scale of the broken cluster = %v, want a 530 refusal", err)
	}
	if c := env.Cluster(id); c.State != "Alert" || c.Size != 2 {
		t.Errorf("after the refused scale: %s size %d", c.State, c.Size)
	}
}

// A scale-down job that fails right after removing the worker VM: the
// engine returns the job error, repairs the rules the failure left stale
// and reports the real cluster, whose map no longer matches its size.
func TestScaleFailingAfterVMRemovalRepairsRules(t *testing.T) {
	t.Parallel()
	for _, profile := range simulator.Profiles() {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, profile)
			id := env.createCluster("fault-after-removal", 3, 2)
			if err := env.Sim.FailJobStep("scale-down", "vm-removed", 1, ""); err != nil {
				t.Fatal(err)
			}
			rep, err := env.engine().Scale(env.ctx(), id, 1, Intent{})
			var cerr *cloudstack.Error
			if !errors.As(err, &cerr) || cerr.Kind() != cloudstack.KindBusiness || !strings.Contains(err.Error(), "failed to remove VM") {
				t.Fatalf("Scale = %v, want the 530 job failure\n%s", err, rep)
			}
			text := rep.String()
			for _, want := range []string{"from 2 to 1 worker(s) failed", "deleted stale node SSH firewall range 2222-2224",
				"created missing node SSH firewall range 2222-2223"} {
				if !strings.Contains(text, want) {
					t.Errorf("report lacks %q:\n%s", want, text)
				}
			}
			if rep.Cluster == nil || rep.Cluster.State != "Alert" || InconsistentMap(rep.Cluster) == nil {
				t.Fatalf("report cluster = %+v, want the real Alert with one worker and size 2", rep.Cluster)
			}
			c := env.assertHardened(id)
			env.assertSSH(id, c)
		})
	}
}
