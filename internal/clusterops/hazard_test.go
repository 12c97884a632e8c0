package clusterops

import (
	"bytes"
	"context"
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

// userHazardCluster creates a cluster without etcd VMs and adds a user
// firewall rule 22 with a user forward 22→22: CloudStack's scale selector
// accepts that rule, so any scale may revoke it instead of the node range,
// whatever the order of the rules. It returns the cluster id and the rule.
func userHazardCluster(t *testing.T, env *testEnv) (string, cloudstack.FirewallRule) {
	t.Helper()
	ctx := env.ctx()
	id := env.createCluster("user-hazard", 0, 1)
	c := env.Cluster(id)
	ref, err := env.API.CreateFirewallRule(ctx, cloudstack.CreateFirewallRuleParams{IPAddressID: c.IPAddressID,
		Protocol: "tcp", StartPort: 22, EndPort: 22, CIDRList: []string{userCIDR}})
	if err != nil {
		t.Fatalf("createFirewallRule: %v", err)
	}
	if _, err := cloudstack.WaitForJob(ctx, env.API, ref.JobID, fastWait); err != nil {
		t.Fatalf("createFirewallRule job: %v", err)
	}
	worker := vmNamed(c, "-node-")
	pf, err := env.API.CreatePortForwardingRule(ctx, cloudstack.CreatePortForwardingRuleParams{IPAddressID: c.IPAddressID,
		Protocol: "tcp", PublicPort: 22, PrivatePort: 22, VirtualMachineID: worker, NetworkID: c.NetworkID})
	if err != nil {
		t.Fatalf("createPortForwardingRule: %v", err)
	}
	if _, err := cloudstack.WaitForJob(ctx, env.API, pf.JobID, fastWait); err != nil {
		t.Fatalf("createPortForwardingRule job: %v", err)
	}
	for _, fw := range env.FirewallRulesOn(c.IPAddressID) {
		if fw.StartPort == 22 {
			return id, fw
		}
	}
	t.Fatal("the user firewall rule 22 is gone")
	return "", cloudstack.FirewallRule{}
}

// A user rule the selector accepts is refused before any change, at plan
// time (CheckScale) and at apply time (Scale), whatever its position.
func TestScaleRefusesUserRuleTheSelectorAccepts(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id, userFW := userHazardCluster(t, env)
	eng := env.engine()
	before, err := env.Sim.Dump()
	if err != nil {
		t.Fatal(err)
	}

	check, err := eng.CheckScale(env.ctx(), id, 2, Intent{})
	if err != nil {
		t.Fatalf("CheckScale: %v", err)
	}
	var herr *HazardError
	if !errors.As(check.Err(), &herr) || herr.OptIn != OptInMoveUserRules {
		t.Fatalf("CheckScale.Err() = %v, want *HazardError with the opt-in", check.Err())
	}
	rep, err := eng.Scale(env.ctx(), id, 2, Intent{})
	if !errors.As(err, &herr) {
		t.Fatalf("Scale = %v, want *HazardError\n%s", err, rep)
	}
	if len(herr.Hazards) != 1 || herr.Hazards[0].Rule.ID != userFW.ID || herr.Hazards[0].Owner != rules.OwnerUser {
		t.Errorf("hazards = %+v, want the user rule", herr.Hazards)
	}
	for _, want := range []string{userFW.ID, "user firewall rule", "#14159", "same ports to port 22", "consent"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if rep.Changed() {
		t.Errorf("refused scale reports changes:\n%s", rep)
	}
	if after, _ := env.Sim.Dump(); !bytes.Equal(before, after) {
		t.Errorf("a refused scale changed the simulator state")
	}
}

// With consent the user rule is deleted for the scale and re-created after
// it with the same protocol, ports and CIDRs.
func TestScaleMovesUserRuleAroundTheScaleWithConsent(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id, userFW := userHazardCluster(t, env)
	ipID := env.Cluster(id).IPAddressID

	rep, err := env.engine().Scale(env.ctx(), id, 2, Intent{MoveUserRules: true})
	if err != nil {
		t.Fatalf("Scale with consent: %v\n%s", err, rep)
	}
	moved := rep.StepsOf(StepMoved)
	if len(moved) != 2 || moved[0].PreviousRuleID != userFW.ID || moved[1].PreviousRuleID != userFW.ID || moved[1].RuleID == "" {
		t.Fatalf("moved = %+v, want the user rule deleted before and re-created after the scale:\n%s", moved, rep)
	}
	scaledAt := slices.IndexFunc(rep.Steps, func(s Step) bool { return s.Kind == StepScaled })
	if slices.IndexFunc(rep.Steps, func(s Step) bool { return s == moved[1] }) < scaledAt {
		t.Errorf("the rule came back before the scale:\n%s", rep)
	}
	c := env.Cluster(id)
	if c.State != "Running" || c.Size != 2 {
		t.Fatalf("cluster %s size %d, want Running size 2", c.State, c.Size)
	}
	want := []string{"tcp 22 [" + userCIDR + "]", "tcp 2222-2224 [0.0.0.0/0]", "tcp 6443 [0.0.0.0/0]"}
	if got := firewallShape(env.FirewallRulesOn(ipID)); !slices.Equal(got, want) {
		t.Errorf("firewall rules = %v, want %v", got, want)
	}
}

// A user forward in the node SSH port range is deleted by every scale's
// forward cleanup. Without consent Scale refuses; with it the forward is
// recorded and re-created after the scale, with its source CIDRs.
func TestScalePreservesCollateralUserForward(t *testing.T) {
	t.Parallel()
	for _, cidrs := range [][]string{nil, {userCIDR}} {
		env := newEnv(t, simulator.Profile42211)
		ctx := env.ctx()
		c, fwdID := env.collateralCluster(fmt.Sprintf("collateral-%d", len(cidrs)), cidrs...)
		id, control := c.ID, vmNamed(c, "-control-")
		before, err := env.Sim.Dump()
		if err != nil {
			t.Fatal(err)
		}
		_, err = env.engine().Scale(ctx, id, 1, Intent{})
		var herr *HazardError
		if !errors.As(err, &herr) || len(herr.Hazards) != 1 || herr.Hazards[0].Kind != rules.HazardCollateral ||
			herr.Hazards[0].Rule.ID != fwdID {
			t.Fatalf("Scale without consent = %v, want a *HazardError for forward %s", err, fwdID)
		}
		if after, _ := env.Sim.Dump(); !bytes.Equal(before, after) {
			t.Fatalf("a refused scale changed the simulator state")
		}

		rep, err := env.engine().Scale(ctx, id, 1, Intent{MoveUserRules: true})
		if err != nil {
			t.Fatalf("Scale with consent: %v\n%s", err, rep)
		}
		moved := rep.StepsOf(StepMoved)
		if len(moved) != 2 || !strings.HasPrefix(moved[0].Message, "recorded user port forward 2224→8080") ||
			!strings.HasPrefix(moved[1].Message, "re-created user port forward 2224→8080") {
			t.Fatalf("moved steps = %+v\n%s", moved, rep)
		}
		got := map[int]string{}
		for _, pf := range env.ForwardsOn(c.IPAddressID) {
			got[pf.PublicPort] = fmt.Sprintf("%d %s %v", pf.PrivatePort, pf.VirtualMachineID, pf.CIDRList)
		}
		want := map[int]string{2222: fmt.Sprintf("22 %s []", control), 2223: fmt.Sprintf("22 %s []", vmNamed(env.Cluster(id), "-node-")),
			2224: fmt.Sprintf("8080 %s %v", control, cidrsOrEmpty(cidrs))}
		if !maps.Equal(got, want) {
			t.Errorf("forwards = %v, want %v", got, want)
		}
		if c := env.Cluster(id); c.State != "Running" || c.Size != 1 {
			t.Errorf("cluster %s size %d, want Running size 1", c.State, c.Size)
		}
	}
}

func cidrsOrEmpty(c []string) []string {
	if c == nil {
		return []string{}
	}
	return c
}

// On CloudStack 4.21.0 through 4.22.0.x a TCP rule without ports breaks the
// scale (the cluster stays in Scaling); the engine refuses, or moves the
// rule with consent. Newer servers skip such rules.
func TestScaleHandlesPortlessRuleByServerVersion(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("portless", 0, 1)
	c := env.Cluster(id)
	ref, err := env.API.CreateFirewallRule(env.ctx(), cloudstack.CreateFirewallRuleParams{IPAddressID: c.IPAddressID,
		Protocol: "tcp", CIDRList: []string{userCIDR}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cloudstack.WaitForJob(env.ctx(), env.API, ref.JobID, fastWait); err != nil {
		t.Fatal(err)
	}
	check, err := env.engine().CheckScale(env.ctx(), id, 2, Intent{})
	if err != nil || check.Err() != nil {
		t.Fatalf("on 4.22.1.1: check %v, %v; want no hazard", check.Err(), err)
	}
	old := &versionAPI{API: env.API, version: "4.22.0.0"}
	check, err = New(old, Options{Wait: fastWait}).CheckScale(env.ctx(), id, 2, Intent{})
	var herr *HazardError
	if err != nil || !errors.As(check.Err(), &herr) || herr.Hazards[0].Kind != rules.HazardPortless {
		t.Fatalf("on 4.22.0.0: check %v, %v; want the port-less hazard", check.Err(), err)
	}
	if !strings.Contains(check.Err().Error(), "stays in Scaling") {
		t.Errorf("error = %v", check.Err())
	}
}

type versionAPI struct {
	API
	version string
}

func (v *versionAPI) CloudStackVersion(context.Context) (string, error) { return v.version, nil }

// With ssh_cidrs narrower than CloudStack's open rules, the plan of a
// scale says that the node range the scale re-creates open will be
// narrowed again, with the CIDRs.
func TestCheckScaleSaysTheNodeRangeIsNarrowedAgain(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("narrow", 1, 1)
	in := Intent{SourceCIDRs: rules.SourceCIDRs{SSHCIDRs: []string{"10.0.0.0/8"}}}
	if _, err := env.engine().Sync(env.ctx(), id, in); err != nil {
		t.Fatal(err)
	}
	check, err := env.engine().CheckScale(env.ctx(), id, 2, in)
	if err != nil || check.Err() != nil {
		t.Fatalf("CheckScale = %v, %v", err, check.Err())
	}
	lines := strings.Join(check.Describe(), "\n")
	if !strings.Contains(lines, "re-creates the node SSH firewall range open to 0.0.0.0/0") ||
		!strings.Contains(lines, "narrow it back to 10.0.0.0/8") {
		t.Fatalf("Describe() = %q, want the narrowing after the scale", lines)
	}
	open, err := env.engine().CheckScale(env.ctx(), id, 2, Intent{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(open.Describe(), "\n"), "narrow it back") {
		t.Fatalf("without ssh_cidrs, Describe() = %q", open.Describe())
	}
}
