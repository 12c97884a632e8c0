package clusterops

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// An ambiguous look-up names every match, sorted, whatever order the list
// came in; an empty one names what is visible instead.
func TestPickOneListsMatchesInTheirOwnOrder(t *testing.T) {
	t.Parallel()
	a := cloudstack.Zone{ID: "z-2", Name: "prod"}
	b := cloudstack.Zone{ID: "z-1", Name: "prod"}
	c := cloudstack.Zone{ID: "z-3", Name: "dev"}
	key := func(z cloudstack.Zone) (string, string) { return z.ID, z.Name }
	for _, list := range [][]cloudstack.Zone{{a, b, c}, {c, b, a}} {
		_, err := pickOne("zone", "", list, NameMatch{Name: "prod"}, key)
		var le *LookupError
		if !errors.As(err, &le) || !le.Ambiguous() {
			t.Fatalf("two zones named prod: %v", err)
		}
		if want := `2 zones are named "prod": prod (z-1), prod (z-2).`; !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("error %q, want it to start with %q", err, want)
		}
		got, err := pickOne("zone", "", list, NameMatch{Name: "dev"}, key)
		if err != nil || got != c {
			t.Fatalf("dev: %+v, %v", got, err)
		}
		_, err = pickOne("zone", "", list, NameMatch{Regex: regexp.MustCompile("^staging")}, key)
		if want := `no zone visible to the caller has a name matching "^staging". Visible there: dev (z-3), prod (z-1), prod (z-2)`; err == nil || err.Error() != want {
			t.Fatalf("error %q, want %q", err, want)
		}
	}
	// A name differs from another by case only: CloudStack's name filter
	// would return both, the look-up keeps the exact one.
	got, err := pickOne("zone", "", []cloudstack.Zone{{ID: "z-9", Name: "PROD"}, b}, NameMatch{Name: "prod"}, key)
	if err != nil || got != b {
		t.Fatalf("case-sensitive match: %+v, %v", got, err)
	}
}

func TestCatalogLookupsOnTheSimulator(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "4.22.1.1")
	eng := e.engine()
	ctx := e.ctx()
	info := e.Info

	zone, err := eng.FindZone(ctx, NameMatch{Name: "sim-zone-1"})
	if err != nil || zone.ID != info.ZoneID {
		t.Fatalf("FindZone: %+v, %v", zone, err)
	}
	_, err = eng.FindZone(ctx, NameMatch{Name: "SIM-ZONE-1"})
	if err == nil || !strings.Contains(err.Error(), `no zone visible to the caller is named "SIM-ZONE-1". Visible there: sim-zone-1 (`+info.ZoneID+`)`) {
		t.Fatalf("FindZone by the wrong case: %v", err)
	}

	off, err := eng.FindServiceOffering(ctx, NameMatch{Name: "cks-medium"}, info.ZoneID)
	if err != nil || off.ID != info.ServiceOfferingID {
		t.Fatalf("FindServiceOffering: %+v, %v", off, err)
	}
	_, err = eng.FindServiceOffering(ctx, NameMatch{Regex: regexp.MustCompile("^cks-")}, info.ZoneID)
	want := "3 service offerings in zone " + info.ZoneID + ` have a name matching "^cks-": cks-large (` + info.LargeServiceOfferingID +
		"), cks-medium (" + info.ServiceOfferingID + "), cks-small (" + info.SmallServiceOfferingID + ")"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("FindServiceOffering by pattern: %v\nwant %s", err, want)
	}
	// The narrowed list has nothing: the error lists the whole scope.
	_, err = eng.FindServiceOffering(ctx, NameMatch{Name: "cks-huge"}, info.ZoneID)
	if err == nil || !strings.Contains(err.Error(), "cks-large (") || !strings.Contains(err.Error(), "cks-small (") {
		t.Fatalf("FindServiceOffering of a missing name: %v", err)
	}

	netw, err := eng.FindNetwork(ctx, NameMatch{Name: "sim-isolated-network"}, info.ZoneID, "")
	if err != nil || netw.ID != info.IsolatedNetworkID {
		t.Fatalf("FindNetwork: %+v, %v", netw, err)
	}
	// keyword is a LIKE: "sim-vpc-tier" also finds sim-vpc-tier-deny,
	// which the exact match leaves out.
	netw, err = eng.FindNetwork(ctx, NameMatch{Name: "sim-vpc-tier"}, info.ZoneID, "")
	if err != nil || netw.ID != info.VPCTierNetworkID {
		t.Fatalf("FindNetwork sim-vpc-tier: %+v, %v", netw, err)
	}
	_, err = eng.FindNetwork(ctx, NameMatch{Regex: regexp.MustCompile("^sim-vpc-tier")}, info.ZoneID, "")
	var le *LookupError
	if !errors.As(err, &le) || len(le.Matches) != 4 { // the tiers on default_allow, default_deny and the VPC's own list (two)
		t.Fatalf("FindNetwork by pattern: %v", err)
	}

	prj, err := eng.FindProject(ctx, NameMatch{Name: "cks-project"})
	if err != nil || prj.ID != info.ProjectID {
		t.Fatalf("FindProject: %+v, %v", prj, err)
	}
}

// A project's network is found with its project only, as listNetworks
// leaves project networks out of account-scoped lists.
func TestFindNetworkOfAProject(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "4.22.1.1")
	eng := e.engine()
	ctx := e.ctx()
	e.NewCluster(cloudstack.CreateClusterParams{Name: "team", Ownership: cloudstack.Ownership{ProjectID: e.Info.ProjectID}})

	_, err := eng.FindNetwork(ctx, NameMatch{Name: "team-network"}, e.Info.ZoneID, "")
	var le *LookupError
	if !errors.As(err, &le) || len(le.Matches) != 0 {
		t.Fatalf("a project's network without the project: %v", err)
	}
	netw, err := eng.FindNetwork(ctx, NameMatch{Name: "team-network"}, e.Info.ZoneID, e.Info.ProjectID)
	if err != nil || netw.Name != "team-network" {
		t.Fatalf("a project's network with the project: %+v, %v", netw, err)
	}
}
