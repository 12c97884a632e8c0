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
	rep.add(StepHardened, "hardened")
	rep.add(StepScaled, "scaled")
	if !rep.Changed() {
		t.Errorf("a hardened rule is a change")
	}
	if got := rep.Warnings(); !slices.Equal(got, []string{"blocked", "hardened"}) {
		t.Errorf("Warnings = %v", got)
	}
	if rep.String() != "note\nblocked\nhardened\nscaled" {
		t.Errorf("String = %q", rep.String())
	}
	if s := rep.StepsOf(StepScaled); len(s) != 1 || s[0].Message != "scaled" {
		t.Errorf("StepsOf = %+v", s)
	}
}

func TestHazardErrorText(t *testing.T) {
	t.Parallel()
	herr := &HazardError{ClusterID: "c1", OptIn: OptInMoveUserRules, Hazards: []rules.Hazard{
		{Explanation: "user firewall rule 7 (tcp 22) has a forward with the same ports to port 22"}}}
	for _, want := range []string{"c1", "user firewall rule 7", "without consent", "same protocol, ports and CIDRs"} {
		if !strings.Contains(herr.Error(), want) {
			t.Errorf("HazardError %q lacks %q", herr.Error(), want)
		}
	}
	herr.OptIn = ""
	if strings.Contains(herr.Error(), "consent") || !strings.HasSuffix(herr.Error(), "yourself before scaling") {
		t.Errorf("HazardError without an opt-in = %q", herr.Error())
	}
}
