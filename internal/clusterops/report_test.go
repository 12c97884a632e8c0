package clusterops

import (
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

func TestReportText(t *testing.T) {
	t.Parallel()
	var rep Report
	if rep.Changed() || rep.String() != "" || len(rep.Warnings()) != 0 {
		t.Fatalf("empty report: %+v", rep)
	}
	rep.add(StepNote, "note")
	rep.add(StepBlocked, "blocked")
	if rep.Changed() {
		t.Errorf("notes and blocked steps are not changes")
	}
	rep.add(StepNeutralised, "neutralised")
	rep.add(StepScaled, "scaled")
	if !rep.Changed() {
		t.Errorf("a neutralised rule is a change")
	}
	if got := rep.Warnings(); !slices.Equal(got, []string{"blocked", "neutralised"}) {
		t.Errorf("Warnings = %v", got)
	}
	if rep.String() != "note\nblocked\nneutralised\nscaled" {
		t.Errorf("String = %q", rep.String())
	}
	if s := rep.StepsOf(StepScaled); len(s) != 1 || s[0].Message != "scaled" {
		t.Errorf("StepsOf = %+v", s)
	}
}

func TestErrorTexts(t *testing.T) {
	t.Parallel()
	herr := &HazardError{ClusterID: "c1", OptIn: "recreate_user_hazard_rules", Hazards: []rules.Hazard{
		{Explanation: "user firewall rule 7 (tcp 22) has a port forward to port 22"}}}
	for _, want := range []string{"c1", "user firewall rule 7", "set recreate_user_hazard_rules", "same protocol, ports and CIDRs"} {
		if !strings.Contains(herr.Error(), want) {
			t.Errorf("HazardError %q lacks %q", herr.Error(), want)
		}
	}
	herr.Unfixable = "move them"
	if strings.Contains(herr.Error(), "set recreate") || !strings.HasSuffix(herr.Error(), "move them") {
		t.Errorf("unfixable HazardError = %q", herr.Error())
	}
	rerr := &RecoveryNeededError{ClusterID: "c1", State: "Alert", Size: 2, MapWorkers: 1, Reason: "its size is stale",
		Plan: "Recovery would stop it.", OptIn: "allow_restart_for_recovery"}
	for _, want := range []string{"state Alert with size 2 and 1 worker VM(s)", "its size is stale", "Recovery would stop it.",
		"interrupts its workloads", "allow_restart_for_recovery"} {
		if !strings.Contains(rerr.Error(), want) {
			t.Errorf("RecoveryNeededError %q lacks %q", rerr.Error(), want)
		}
	}
}
