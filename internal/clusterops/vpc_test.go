package clusterops

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
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

// vpcHost is the address of a VPC tier cluster's own IP, from its endpoint.
func vpcHost(c *cloudstack.Cluster) string { return clusterview.EndpointHost(c) }

// On a tier with a list of its own, a deleted CKS item for 22 closes every
// node's SSH path: the snapshot is out of sync and names the nodes, Sync
// creates the item as CKS does ("TCP", at the top of the list), and SSH
// opens again.
func TestVPCTierACLItemRepair(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createClusterIn("acl", env.Info.VPCACLTierNetworkID, 1, 1)
	eng := env.engine()
	s, err := eng.Snapshot(env.ctx(), id, Intent{})
	if err != nil {
		t.Fatal(err)
	}
	if s.ACL == nil || s.ACL.ID != env.Info.VPCACLID || !s.InSync() || len(s.ACLClassification.Matched) != 3 ||
		s.Layout.VPCAPI != rules.VPCAPIForward {
		t.Fatalf("fresh cluster: acl %+v, matched %v, api %s, in sync %t", s.ACL, s.ACLClassification.Matched, s.Layout.VPCAPI, s.InSync())
	}
	host := vpcHost(&s.Cluster)
	env.DeleteCKSACLItems(env.Info.VPCACLID, 22)
	if testutil.CanDial(host, 2222) {
		t.Fatal("SSH still open without the item for 22")
	}
	s, err = eng.Snapshot(env.ctx(), id, Intent{})
	if err != nil {
		t.Fatal(err)
	}
	if s.InSync() || len(s.ACLClassification.Missing) != 1 || s.ACLClassification.Missing[0].Port != 22 {
		t.Fatalf("after the deletion: in sync %t, missing %v", s.InSync(), s.ACLClassification.Missing)
	}
	if closed := ObservationOf(s).ClosedSSH(); len(closed) != 3 {
		t.Fatalf("ClosedSSH = %v, want every node", closed)
	}
	if lines := s.DescribePlan(s.Sync); len(lines) != 1 || !strings.Contains(lines[0], "TCP 22") {
		t.Fatalf("plan %v", lines)
	}
	rep, err := eng.Sync(env.ctx(), id, Intent{})
	if err != nil {
		t.Fatalf("Sync: %v\n%s", err, rep)
	}
	if got := rep.StepsOf(StepRepaired); len(got) != 1 || !strings.Contains(got[0].Message, "moved to the top") {
		t.Fatalf("steps %v", rep.Steps)
	}
	var top cloudstack.NetworkACLItem
	for _, it := range env.ACLItems(env.Info.VPCACLID) {
		if it.Number == 1 {
			top = it
		}
	}
	if top.Protocol != "TCP" || top.StartPort != 22 || strings.Join(top.CIDRList, ",") != "0.0.0.0/0,::/0" {
		t.Fatalf("item at the top: %+v", top)
	}
	if !testutil.CanDial(host, 2222) {
		t.Fatal("SSH not open again after the repair")
	}
	if after, err := eng.Snapshot(env.ctx(), id, Intent{}); err != nil || !after.InSync() {
		t.Fatalf("after the repair: %v, %v", after.ACLClassification.Missing, err)
	}
}

// A user forward on the VPC IP in the range the next scale's forward cleanup
// reaches is named, and the scale refused before any change: CKS's own
// forward takes that port after the scale, so it could not be re-created.
func TestVPCTierScaleNamesUserForward(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createClusterIn("coll", env.Info.VPCACLTierNetworkID, 0, 1)
	c := env.Cluster(id)
	eng := env.engine()
	s, err := eng.Snapshot(env.ctx(), id, Intent{})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := env.API.CreatePortForwardingRule(env.ctx(), cloudstack.CreatePortForwardingRuleParams{IPAddressID: s.PublicIPID,
		Protocol: "tcp", PublicPort: 2224, PrivatePort: 8080, VirtualMachineID: vmNamed(c, "-node-"), NetworkID: c.NetworkID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cloudstack.WaitForJob(env.ctx(), env.API, ref.JobID, fastWait); err != nil {
		t.Fatal(err)
	}
	check, err := eng.CheckScale(env.ctx(), id, 2, Intent{})
	if err != nil {
		t.Fatal(err)
	}
	var herr *HazardError
	if !errors.As(check.Err(), &herr) || len(herr.Hazards) != 1 || herr.Hazards[0].Rule.ID != ref.ID ||
		herr.Hazards[0].Kind != rules.HazardCollateral {
		t.Fatalf("CheckScale(2) = %v", check.Err())
	}
	if ok, _ := eng.CheckScale(env.ctx(), id, 1, Intent{}); ok.Err() != nil {
		t.Fatalf("no size change, no hazard: %v", ok.Err())
	}
	if _, err := eng.Scale(env.ctx(), id, 2, Intent{MoveUserRules: true}); !errors.As(err, &herr) {
		t.Fatalf("Scale(2) = %v", err)
	}
	if env.Cluster(id).Size != 1 || !slices.ContainsFunc(env.ForwardsOn(s.PublicIPID), func(pf cloudstack.PortForwardingRule) bool {
		return pf.ID == ref.ID
	}) {
		t.Fatal("the refused scale changed the cluster or deleted the forward")
	}
}

// Deleting a cluster whose tier shares its list with another cluster's tier:
// CloudStack's destroy revokes every Allow "TCP" 6443 and 22 item, the
// other cluster's and the user's included; Delete says so beforehand,
// re-creates the other cluster's items and the user's, deletes the 2379
// item the cluster's etcd node had, and warns of nothing left on the
// released IP.
func TestVPCTierDeleteRestoresASharedList(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	a := env.createClusterIn("first", env.Info.VPCACLTierNetworkID, 1, 1)
	b := env.createClusterIn("second", env.Info.VPCACLTierLBNetworkID, 0, 1)
	ref, err := env.API.CreateNetworkACL(env.ctx(), cloudstack.CreateNetworkACLParams{ACLID: env.Info.VPCACLID, Protocol: "TCP",
		StartPort: 22, EndPort: 22, CIDRList: []string{"192.0.2.0/24"}, Reason: "office"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cloudstack.WaitForJob(env.ctx(), env.API, ref.JobID, fastWait); err != nil {
		t.Fatal(err)
	}
	eng := env.engine()
	impact, err := eng.CheckDelete(env.ctx(), a, Intent{})
	if err != nil {
		t.Fatal(err)
	}
	if len(impact.Sharing) != 1 || impact.Sharing[0].ID != b || len(impact.RestoreUser) != 1 || impact.RestoreUser[0].ID != ref.ID ||
		len(impact.RestoreShared) != 2 || len(impact.LeftEtcd) != 1 || len(impact.Revoked) != 5 {
		t.Fatalf("impact %+v", impact)
	}
	if text := strings.Join(impact.Describe(), "\n"); !strings.Contains(text, "second") || !strings.Contains(text, ref.ID) {
		t.Fatalf("Describe: %s", text)
	}

	rep, err := eng.Delete(env.ctx(), a, Intent{})
	if err != nil {
		t.Fatalf("Delete: %v\n%s", err, rep)
	}
	if blocked := rep.StepsOf(StepBlocked); len(blocked) != 0 {
		t.Fatalf("blocked steps: %v", blocked)
	}
	if len(rep.StepsOf(StepRepaired)) != 3 || len(rep.StepsOf(StepRemoved)) != 1 {
		t.Fatalf("steps: %s", rep)
	}
	var ports []string
	for _, it := range env.ACLItems(env.Info.VPCACLID) {
		ports = append(ports, fmt.Sprintf("%s %d %s", it.Protocol, it.StartPort, strings.Join(it.CIDRList, ",")))
	}
	slices.Sort(ports)
	if want := []string{"TCP 22 0.0.0.0/0,::/0", "TCP 22 192.0.2.0/24", "TCP 6443 0.0.0.0/0,::/0", "tcp 443 0.0.0.0/0,::/0"}; !slices.Equal(ports, want) {
		t.Fatalf("items after the delete %v, want %v", ports, want)
	}
	sb, err := eng.Snapshot(env.ctx(), b, Intent{})
	if err != nil || !sb.InSync() || sb.Layout.VPCAPI != rules.VPCAPILoadBalancer {
		t.Fatalf("the other cluster: %v, in sync %t, api %s", err, sb != nil && sb.InSync(), sb.Layout.VPCAPI)
	}
	if !testutil.CanDial(vpcHost(&sb.Cluster), 2222) {
		t.Fatal("the other cluster's SSH is closed")
	}
	if up, err := eng.Scale(env.ctx(), b, 2, Intent{}); err != nil {
		t.Fatalf("scaling the other cluster: %v\n%s", err, up)
	}
}

// A destroy that fails after it revoked the list's items (releasing the IP
// fails) leaves the cluster in Destroying: Delete returns the error and has
// re-created what the other cluster on the list needs; the cluster's 2379
// item stays with it. The next Delete finishes, and restores again what the
// retried destroy revoked.
func TestVPCTierFailedDeleteRestoresASharedList(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	a := env.createClusterIn("first", env.Info.VPCACLTierNetworkID, 1, 1)
	b := env.createClusterIn("second", env.Info.VPCACLTierLBNetworkID, 0, 1)
	eng := env.engine()
	if err := env.Sim.FailJobStep("delete", "release-ip", 1, ""); err != nil {
		t.Fatal(err)
	}
	rep, err := eng.Delete(env.ctx(), a, Intent{})
	if err == nil || env.Cluster(a).State != "Destroying" {
		t.Fatalf("Delete = %v, state %s\n%s", err, env.Cluster(a).State, rep)
	}
	if len(rep.StepsOf(StepRepaired)) != 2 || len(rep.StepsOf(StepRemoved)) != 0 {
		t.Fatalf("steps after the failure: %s", rep)
	}
	if sb, err := eng.Snapshot(env.ctx(), b, Intent{}); err != nil || !sb.InSync() {
		t.Fatalf("the other cluster after the failed delete: %v, %v", err, sb.ACLClassification.Missing)
	}
	rep, err = eng.Delete(env.ctx(), a, Intent{})
	if err != nil {
		t.Fatalf("second Delete: %v\n%s", err, rep)
	}
	if len(rep.StepsOf(StepRepaired)) != 2 || len(rep.StepsOf(StepRemoved)) != 1 || len(rep.StepsOf(StepBlocked)) != 0 {
		t.Fatalf("steps of the second delete: %s", rep)
	}
	if sb, err := eng.Snapshot(env.ctx(), b, Intent{}); err != nil || !sb.InSync() {
		t.Fatalf("the other cluster: %v, %v", err, sb.ACLClassification.Missing)
	}
}

// A user's Deny for 22 from everyone, numbered before CKS's item, keeps SSH
// out as surely as a deleted item: the list lets no 22 in, and the repair
// puts CKS's item above it and applies the list, as CKS's create did (the
// item would otherwise be first in the database only).
func TestVPCTierACLDenyAboveCKSItem(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createClusterIn("deny", env.Info.VPCACLTierNetworkID, 0, 1)
	eng := env.engine()
	ref, err := env.API.CreateNetworkACL(env.ctx(), cloudstack.CreateNetworkACLParams{ACLID: env.Info.VPCACLID, Protocol: "tcp",
		StartPort: 22, EndPort: 22, Action: "Deny", CIDRList: []string{"0.0.0.0/0"}})
	if err == nil {
		_, err = cloudstack.WaitForJob(env.ctx(), env.API, ref.JobID, fastWait)
	}
	if err != nil {
		t.Fatal(err)
	}
	var top string
	for _, it := range env.ACLItems(env.Info.VPCACLID) {
		if it.Number == 1 {
			top = it.ID
		}
	}
	// Moved to the top, then applied: a move alone changes the numbers only.
	mv, err := env.API.MoveNetworkACLItem(env.ctx(), ref.ID, "", top)
	if err == nil {
		_, err = cloudstack.WaitForJob(env.ctx(), env.API, mv.JobID, fastWait)
	}
	if err == nil {
		mv, err = env.API.ApplyNetworkACLItem(env.ctx(), ref.ID)
	}
	if err == nil {
		_, err = cloudstack.WaitForJob(env.ctx(), env.API, mv.JobID, fastWait)
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := eng.Snapshot(env.ctx(), id, Intent{})
	if err != nil {
		t.Fatal(err)
	}
	host := vpcHost(&s.Cluster)
	if s.InSync() || len(s.ACLClassification.Missing) != 1 || testutil.CanDial(host, 2222) {
		t.Fatalf("a Deny above CKS's item: in sync %t, missing %v", s.InSync(), s.ACLClassification.Missing)
	}
	if rep, err := eng.Sync(env.ctx(), id, Intent{}); err != nil {
		t.Fatalf("Sync: %v\n%s", err, rep)
	}
	if !testutil.CanDial(host, 2222) {
		t.Fatal("SSH still refused after the repair")
	}
	if after, err := eng.Snapshot(env.ctx(), id, Intent{}); err != nil || !after.InSync() {
		t.Fatalf("after the repair: %v, %v", err, after.ACLClassification.Missing)
	}
}
