package clusterops

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

const userCIDR = "10.20.0.0/16"

// userHazardCluster creates a cluster without etcd VMs, adds a user firewall
// rule 22 and a user forward 22→22, then scales out of band so the node
// range is re-created after the user rule: the next scale on 4.22.1.1 would
// revoke the user rule instead of the range. It returns the cluster id and
// the user firewall rule.
func userHazardCluster(t *testing.T, env *testEnv) (string, cloudstack.FirewallRule) {
	t.Helper()
	ctx := env.ctx()
	id := env.createCluster("user-hazard", 0, 1)
	c := env.cluster(id)
	ref, err := env.api.CreateFirewallRule(ctx, cloudstack.CreateFirewallRuleParams{IPAddressID: c.IPAddressID,
		Protocol: "tcp", StartPort: 22, EndPort: 22, CIDRList: []string{userCIDR}})
	if err != nil {
		t.Fatalf("createFirewallRule: %v", err)
	}
	if _, err := cloudstack.WaitForJob(ctx, env.api, ref.JobID, fastWait); err != nil {
		t.Fatalf("createFirewallRule job: %v", err)
	}
	worker := c.VirtualMachines[len(c.VirtualMachines)-1].ID
	pf, err := env.api.CreatePortForwardingRule(ctx, cloudstack.CreatePortForwardingRuleParams{IPAddressID: c.IPAddressID,
		Protocol: "tcp", PublicPort: 22, PrivatePort: 22, VirtualMachineID: worker, NetworkID: c.NetworkID})
	if err != nil {
		t.Fatalf("createPortForwardingRule: %v", err)
	}
	if _, err := cloudstack.WaitForJob(ctx, env.api, pf.JobID, fastWait); err != nil {
		t.Fatalf("createPortForwardingRule job: %v", err)
	}
	if err := env.rawScale(id, 2); err != nil {
		t.Fatalf("raw scale to 2: %v", err)
	}
	for _, fw := range env.firewallRules(c.IPAddressID) {
		if fw.StartPort == 22 {
			return id, fw
		}
	}
	t.Fatal("the user firewall rule 22 is gone")
	return "", cloudstack.FirewallRule{}
}

func TestScaleRefusesUserHazard(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id, userFW := userHazardCluster(t, env)
	eng := env.engine(Options{HazardOptInName: "recreate_user_hazard_rules"})
	before, err := env.sim.Dump()
	if err != nil {
		t.Fatal(err)
	}

	check, err := eng.CheckScale(env.ctx(), id)
	if err != nil {
		t.Fatalf("CheckScale: %v", err)
	}
	if len(check.Blocking) != 1 || check.Blocking[0].Rule.ID != userFW.ID || check.Blocking[0].Owner != rules.OwnerUser {
		t.Fatalf("CheckScale blocking = %+v, want the user rule %s", check.Blocking, userFW.ID)
	}
	var herr *HazardError
	if !errors.As(check.Err(), &herr) {
		t.Fatalf("CheckScale.Err() = %v, want *HazardError", check.Err())
	}

	rep, err := eng.Scale(env.ctx(), id, 1)
	if !errors.As(err, &herr) {
		t.Fatalf("Scale = %v, want *HazardError\n%s", err, rep)
	}
	if len(herr.Hazards) != 1 || herr.Hazards[0].Rule.ID != userFW.ID {
		t.Errorf("hazards = %+v, want the user rule", herr.Hazards)
	}
	for _, want := range []string{userFW.ID, "user firewall rule", "#14159", "recreate_user_hazard_rules"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if rep.Changed() {
		t.Errorf("refused scale reports changes:\n%s", rep)
	}
	after, err := env.sim.Dump()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("a refused scale changed the simulator state")
	}
}

func TestScaleRecreatesUserHazardWithOptIn(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id, userFW := userHazardCluster(t, env)
	ipID := env.cluster(id).IPAddressID

	rep, err := env.engine(Options{RecreateUserHazardRules: true}).Scale(env.ctx(), id, 1)
	if err != nil {
		t.Fatalf("Scale with the opt-in: %v\n%s", err, rep)
	}
	// Before the scale, and again after it: the server's rebuild put the
	// node range after the re-created user rule.
	neutralised := rep.StepsOf(StepNeutralised)
	if len(neutralised) != 2 || neutralised[0].PreviousRuleID != userFW.ID || neutralised[1].PreviousRuleID != neutralised[0].RuleID {
		t.Fatalf("neutralised = %+v, want the user rule re-created before and after the scale:\n%s", neutralised, rep)
	}
	for _, st := range neutralised {
		if !strings.Contains(st.Message, "user firewall rule tcp 22 from "+userCIDR) {
			t.Errorf("neutralise step = %q", st.Message)
		}
	}
	env.assertHazardFree(id)

	c := env.cluster(id)
	if c.State != "Running" || c.Size != 1 {
		t.Fatalf("cluster %s size %d, want Running size 1", c.State, c.Size)
	}
	want := []string{"tcp 22 [" + userCIDR + "]", "tcp 2222-2223 [0.0.0.0/0]", "tcp 6443 [0.0.0.0/0]"}
	if got := firewallShape(env.firewallRules(ipID)); !slices.Equal(got, want) {
		t.Errorf("firewall rules = %v, want %v", got, want)
	}
	var ports []int
	for _, pf := range env.forwards(ipID) {
		ports = append(ports, pf.PublicPort)
	}
	slices.Sort(ports)
	if !slices.Equal(ports, []int{22, 2222, 2223}) {
		t.Errorf("forward ports = %v, want the user's 22 and the nodes' 2222, 2223", ports)
	}
}

// A user rule the #14159 predicate picks, created after the node range, is
// no hazard for the first scale; that scale's rebuild puts the range after
// it. Without the opt-in the engine leaves it alone and says so.
func TestScaleReportsUserHazardItMayNotTouch(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	ctx := env.ctx()
	id := env.createCluster("user-after-range", 0, 1)
	c := env.cluster(id)
	ref, err := env.api.CreateFirewallRule(ctx, cloudstack.CreateFirewallRuleParams{IPAddressID: c.IPAddressID,
		Protocol: "tcp", StartPort: 22, EndPort: 22, CIDRList: []string{userCIDR}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cloudstack.WaitForJob(ctx, env.api, ref.JobID, fastWait); err != nil {
		t.Fatal(err)
	}
	pf, err := env.api.CreatePortForwardingRule(ctx, cloudstack.CreatePortForwardingRuleParams{IPAddressID: c.IPAddressID,
		Protocol: "tcp", PublicPort: 22, PrivatePort: 22, VirtualMachineID: c.VirtualMachines[0].ID, NetworkID: c.NetworkID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cloudstack.WaitForJob(ctx, env.api, pf.JobID, fastWait); err != nil {
		t.Fatal(err)
	}

	rep, err := env.engine(Options{HazardOptInName: "recreate_user_hazard_rules"}).Scale(ctx, id, 2)
	if err != nil {
		t.Fatalf("Scale: %v\n%s", err, rep)
	}
	if n := len(rep.StepsOf(StepNeutralised)); n != 0 {
		t.Errorf("a user rule was re-created without the opt-in:\n%s", rep)
	}
	left := rep.StepsOf(StepHazard)
	if len(left) != 1 || left[0].RuleID != ref.ID {
		t.Fatalf("hazard steps = %+v, want the user rule %s reported:\n%s", left, ref.ID, rep)
	}
	for _, want := range []string{"left user firewall rule tcp 22 from " + userCIDR, "next scale from any client", "recreate_user_hazard_rules"} {
		if !strings.Contains(left[0].Message, want) {
			t.Errorf("hazard step %q lacks %q", left[0].Message, want)
		}
	}
	if !slices.Contains(rep.Warnings(), left[0].Message) {
		t.Errorf("the hazard is not among the warnings: %v", rep.Warnings())
	}
	var kept bool
	for _, fw := range env.firewallRules(c.IPAddressID) {
		kept = kept || fw.ID == ref.ID
	}
	if !kept {
		t.Errorf("the user rule %s was changed", ref.ID)
	}
}

// A user rule 22-22 picked by #14159 triggers no forward cleanup, because
// its end port lies below 2222: the error says so in words instead of
// calling 2222-22 an empty range.
func TestHazardErrorExplainsCleanupBelowTheNodeRange(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id, userFW := userHazardCluster(t, env)

	_, err := env.engine(Options{}).Scale(env.ctx(), id, 1)
	var herr *HazardError
	if !errors.As(err, &herr) {
		t.Fatalf("Scale = %v, want *HazardError", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "2222-22 ") || strings.Contains(msg, "range 2222-22") {
		t.Errorf("error names a backwards port range: %s", msg)
	}
	want := "the forward cleanup that follows deletes the port forwards whose public start port lies between 2222 and " +
		"the revoked rule's end port, which is 22 here, so it deletes none"
	if !strings.Contains(msg, want) || !strings.Contains(msg, "user firewall rule "+userFW.ID) {
		t.Errorf("error %q lacks %q", msg, want)
	}
}

// A user forward in the node SSH port range is deleted by every scale's
// forward cleanup. Without the opt-in Scale refuses; with it the forward is
// recorded and re-created after the scale.
func TestScalePreservesCollateralUserForward(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	ctx := env.ctx()
	c, fwdID := env.collateralCluster("collateral")
	id, control := c.ID, c.VirtualMachines[0].ID
	before, err := env.sim.Dump()
	if err != nil {
		t.Fatal(err)
	}

	_, err = env.engine(Options{}).Scale(ctx, id, 1)
	var herr *HazardError
	if !errors.As(err, &herr) || len(herr.Hazards) != 1 || herr.Hazards[0].Kind != rules.HazardCollateral ||
		herr.Hazards[0].Rule.ID != fwdID {
		t.Fatalf("Scale without the opt-in = %v, want a *HazardError for forward %s", err, fwdID)
	}
	if after, _ := env.sim.Dump(); !bytes.Equal(before, after) {
		t.Fatalf("a refused scale changed the simulator state")
	}

	rep, err := env.engine(Options{RecreateUserHazardRules: true}).Scale(ctx, id, 1)
	if err != nil {
		t.Fatalf("Scale with the opt-in: %v\n%s", err, rep)
	}
	preserved := rep.StepsOf(StepPreserved)
	if len(preserved) != 2 || !strings.HasPrefix(preserved[0].Message, "recorded user port forward 2224→8080") ||
		!strings.HasPrefix(preserved[1].Message, "re-created user port forward 2224→8080") {
		t.Fatalf("preserved steps = %+v\n%s", preserved, rep)
	}
	if blocked := rep.StepsOf(StepBlocked); len(blocked) != 1 || !strings.Contains(blocked[0].Message, "2224→22") {
		t.Errorf("blocked steps = %+v, want the worker forward 2224→22 blocked by the user forward", blocked)
	}
	got := map[int]string{}
	for _, pf := range env.forwards(c.IPAddressID) {
		got[pf.PublicPort] = fmt.Sprintf("%d %s", pf.PrivatePort, pf.VirtualMachineID)
	}
	want := map[int]string{2222: "22 " + control, 2223: "22 " + c.VirtualMachines[1].ID, 2224: "8080 " + control}
	if !maps.Equal(got, want) {
		t.Errorf("forwards = %v, want %v", got, want)
	}
	if c := env.cluster(id); c.State != "Running" || c.Size != 1 {
		t.Errorf("cluster %s size %d, want Running size 1", c.State, c.Size)
	}
}

// A user forward limited to source CIDRs that a scale's forward cleanup
// deletes is re-created with its CIDRs (opt-in). The client could not send
// CIDRs for forwards before, so the engine refused such scales.
func TestScalePreservesCollateralUserForwardWithCIDRs(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	ctx := env.ctx()
	c, _ := env.collateralCluster("collateral-cidrs", userCIDR)
	id, control := c.ID, c.VirtualMachines[0].ID

	rep, err := env.engine(Options{RecreateUserHazardRules: true}).Scale(ctx, id, 1)
	if err != nil {
		t.Fatalf("Scale with the opt-in: %v\n%s", err, rep)
	}
	if preserved := rep.StepsOf(StepPreserved); len(preserved) != 2 ||
		!strings.HasPrefix(preserved[1].Message, "re-created user port forward 2224→8080") {
		t.Fatalf("preserved steps = %+v\n%s", preserved, rep)
	}
	var found bool
	for _, pf := range env.forwards(c.IPAddressID) {
		if pf.PublicPort != 2224 {
			continue
		}
		found = true
		if pf.PrivatePort != 8080 || pf.VirtualMachineID != control || !slices.Equal(pf.CIDRList, []string{userCIDR}) {
			t.Errorf("re-created forward = %+v, want 2224→8080 to %s from %s only", pf, control, userCIDR)
		}
	}
	if !found {
		t.Errorf("the user forward 2224 is gone")
	}
}
