package clusterops

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// Two usable versions with the same semantic version: the lookup names
// both instead of taking whichever the list shows first, in either order.
func TestPickVersionRefusesAnAmbiguousMatch(t *testing.T) {
	t.Parallel()
	a := cloudstack.KubernetesVersion{ID: "v-a", Name: "v1.33.1-a", SemanticVersion: "1.33.1", State: "Enabled", ISOState: "Ready"}
	b := cloudstack.KubernetesVersion{ID: "v-b", Name: "v1.33.1-b", SemanticVersion: "1.33.1", State: "Enabled", ISOState: "Ready"}
	for _, list := range [][]cloudstack.KubernetesVersion{{a, b}, {b, a}} {
		_, err := pickVersion(list, "1.33.1", "")
		var choice *VersionChoiceError
		if !errors.As(err, &choice) || !choice.Exact || !strings.Contains(err.Error(), "v1.33.1-a (1.33.1, v-a), v1.33.1-b (1.33.1, v-b)") {
			t.Fatalf("ambiguous semantic version: %v", err)
		}
		twin := b
		twin.ID, twin.Name = "v-c", a.Name
		_, err = pickVersion(append(list, twin), "", a.Name)
		if !errors.As(err, &choice) || !choice.Exact || !strings.Contains(err.Error(), "only the id tells them apart") {
			t.Fatalf("two versions of one name: %v", err)
		}
		got, err := pickVersion(list, "", "v1.33.1-b")
		if err != nil || got.ID != "v-b" {
			t.Fatalf("by name: %+v, %v", got, err)
		}
	}
}

func usable(id, name, semver string) cloudstack.KubernetesVersion {
	return cloudstack.KubernetesVersion{ID: id, Name: name, SemanticVersion: semver, State: "Enabled", ISOState: "Ready"}
}

// The newest of a prefix, and the one of a prefix, whatever the list order;
// a tie for the newest and a prefix with several versions are refused with
// every candidate named.
func TestSelectVersionByPrefixAndNewest(t *testing.T) {
	t.Parallel()
	disabled := usable("v-dis", "v1.34.9", "1.34.9")
	disabled.State = "Disabled"
	notReady := usable("v-iso", "v1.34.8", "1.34.8")
	notReady.ISOState = "Creating"
	list := []cloudstack.KubernetesVersion{
		usable("v-3", "v1.33.13", "1.33.13"), usable("v-4", "v1.34.2", "1.34.2"), disabled, notReady,
		usable("v-5", "v1.34.4", "1.34.4"), usable("v-1", "v1.32.9", "1.32.9"), usable("v-x", "custom", "not-a-version"),
	}
	for _, order := range [][]cloudstack.KubernetesVersion{list, reversed(list)} {
		got, err := selectVersion(order, "1.34", true)
		if err != nil || got.ID != "v-5" {
			t.Fatalf("newest 1.34: %+v, %v", got, err)
		}
		got, err = selectVersion(order, "", true)
		if err != nil || got.ID != "v-5" {
			t.Fatalf("newest of all: %+v, %v", got, err)
		}
		got, err = selectVersion(order, "1.33", false)
		if err != nil || got.ID != "v-3" {
			t.Fatalf("the one 1.33: %+v, %v", got, err)
		}
		_, err = selectVersion(order, "1.34", false)
		var choice *VersionChoiceError
		if !errors.As(err, &choice) || choice.Newest ||
			err.Error() != "2 usable Kubernetes versions match: v1.34.4 (1.34.4, v-5), v1.34.2 (1.34.2, v-4)" {
			t.Fatalf("two 1.34 without newest: %v", err)
		}
		_, err = selectVersion(order, "1.35", true)
		if err == nil || !strings.Contains(err.Error(), `starts with "1.35"`) ||
			!strings.Contains(err.Error(), "1.34.4 (v1.34.4), 1.34.2 (v1.34.2), 1.33.13 (v1.33.13), 1.32.9 (v1.32.9)") {
			t.Fatalf("no 1.35: %v", err)
		}
	}
	tie := append(list, usable("v-6", "v1.34.4-cilium", "1.34.4"))
	_, err := selectVersion(tie, "1.34", true)
	var choice *VersionChoiceError
	if !errors.As(err, &choice) || !choice.Newest || len(choice.Candidates) != 2 {
		t.Fatalf("a tie for the newest: %v", err)
	}
}

func reversed[T any](in []T) []T {
	out := slices.Clone(in)
	slices.Reverse(out)
	return out
}

func TestListVersionsFilters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "4.22.1.1")
	eng := e.engine()
	ctx := e.ctx()
	semvers := func(f VersionFilter) []string {
		t.Helper()
		vs, err := eng.ListVersions(ctx, e.Info.ZoneID, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, v := range vs {
			out = append(out, v.SemanticVersion)
		}
		return out
	}
	// The simulator seeds 1.32.9, 1.33.13, 1.34.2, 1.34.4 and a disabled 1.35.0.
	for _, c := range []struct {
		f    VersionFilter
		want string
	}{
		{VersionFilter{}, "1.34.4 1.34.2 1.33.13 1.32.9"},
		{VersionFilter{Minimum: "1.33"}, "1.34.4 1.34.2 1.33.13"},
		{VersionFilter{Prefix: "1.34"}, "1.34.4 1.34.2"},
		// CKS upgrades to a newer version of the same or the next minor.
		{VersionFilter{UpgradableFrom: "1.33.13"}, "1.34.4 1.34.2"},
		{VersionFilter{UpgradableFrom: "1.32.9"}, "1.33.13"},
		{VersionFilter{UpgradableFrom: "1.34.2"}, "1.34.4"},
		{VersionFilter{UpgradableFrom: "1.34.4"}, ""},
		{VersionFilter{UpgradableFrom: "1.32.9", Minimum: "1.34"}, ""},
	} {
		if got := strings.Join(semvers(c.f), " "); got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
	if _, err := eng.ListVersions(ctx, e.Info.ZoneID, VersionFilter{Minimum: "latest"}); err == nil {
		t.Error("a minimum that is no version was accepted")
	}
}
