package clusterops

import (
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// On a VPC tier CKS keeps forwards only, on the cluster's own VPC IP: the
// engine finds that IP from the endpoint, repairs forwards and scales, and never creates a firewall rule there.
func TestVPCTierSyncAndScale(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createClusterIn("vpc-cluster", env.Info.VPCTierNetworkID, 1, 1)
	eng := env.engine()

	s, err := eng.Snapshot(env.ctx(), id, Intent{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Layout.Network != rules.NetworkVPC || s.PublicIPID == "" || !strings.Contains(s.Cluster.Endpoint, s.PublicIP) {
		t.Fatalf("snapshot network %s ip %s (%s), endpoint %s", s.Layout.Network, s.PublicIP, s.PublicIPID, s.Cluster.Endpoint)
	}
	if len(s.Classification.Missing) != 0 || len(s.Classification.Stale) != 0 || !s.InSync() {
		t.Fatalf("fresh VPC cluster: missing %v, stale %v, sync %v", s.Classification.Missing, s.Classification.Stale, s.Sync.Actions())
	}
	var ports []int
	for _, n := range s.Nodes() {
		ports = append(ports, n.SSHPort)
		if n.Role == naming.RoleEtcd && n.SSHPort != 50000 {
			t.Errorf("etcd node %s has SSH port %d", n.Name, n.SSHPort)
		}
	}
	slices.Sort(ports)
	if !slices.Equal(ports, []int{2222, 2223, 50000}) {
		t.Errorf("SSH ports = %v, want 2222, 2223 and 50000", ports)
	}

	for _, pf := range env.ForwardsOn(s.PublicIPID) {
		if pf.PublicPort == 2223 || pf.PublicPort == 50000 {
			if err := env.Sim.DeleteRule(pf.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	rep, err := eng.Sync(env.ctx(), id, Intent{})
	if err != nil {
		t.Fatalf("Sync: %v\n%s", err, rep)
	}
	if got := rep.StepsOf(StepRepaired); len(got) != 2 {
		t.Fatalf("repairs = %+v, want the two forwards", got)
	}
	if fws := env.FirewallRulesOn(s.PublicIPID); len(fws) != 0 {
		t.Errorf("firewall rules on a VPC IP: %+v", fws)
	}

	up, err := eng.Scale(env.ctx(), id, 2, Intent{})
	if err != nil {
		t.Fatalf("Scale: %v\n%s", err, up)
	}
	after, err := eng.Snapshot(env.ctx(), id, Intent{})
	if err != nil {
		t.Fatal(err)
	}
	if after.Cluster.Size != 2 || len(after.Classification.Missing) != 0 || len(after.Classification.Stale) != 0 {
		t.Errorf("after scale: size %d, missing %v, stale %v", after.Cluster.Size, after.Classification.Missing, after.Classification.Stale)
	}
}
