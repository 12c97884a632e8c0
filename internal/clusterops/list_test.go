package clusterops

import (
	"regexp"
	"slices"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// List finds every account's and every project's clusters, and narrows
// them by owner, zone, name pattern and state, by name whatever the API's
// order.
func TestListFilters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Profile42211)
	project := cloudstack.Ownership{ProjectID: e.Info.ProjectID}
	teamA := e.NewCluster(cloudstack.CreateClusterParams{Name: "team-a", Ownership: project})
	teamB := e.NewCluster(cloudstack.CreateClusterParams{Name: "team-b"})
	tenant := e.NewCluster(cloudstack.CreateClusterParams{Name: "tenant",
		Ownership: cloudstack.Ownership{Account: e.Info.TenantAccount, DomainID: e.Info.DomainID}})
	if err := e.Sim.SetClusterState(teamB.ID, "Alert"); err != nil {
		t.Fatal(err)
	}
	names := func(f ClusterFilter) []string {
		t.Helper()
		clusters, err := e.engine().List(t.Context(), f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range clusters {
			out = append(out, c.Name)
		}
		return out
	}
	for _, tc := range []struct {
		filter ClusterFilter
		want   []string
	}{
		{ClusterFilter{}, []string{teamA.Name, teamB.Name, tenant.Name}},
		{ClusterFilter{Owner: project}, []string{teamA.Name}},
		{ClusterFilter{Owner: cloudstack.Ownership{Account: e.Info.TenantAccount, DomainID: e.Info.DomainID}}, []string{tenant.Name}},
		{ClusterFilter{Name: regexp.MustCompile("^team-")}, []string{teamA.Name, teamB.Name}},
		{ClusterFilter{State: "alert"}, []string{teamB.Name}},
		{ClusterFilter{ZoneID: e.Info.ZoneID, Name: regexp.MustCompile("a$")}, []string{teamA.Name}},
		{ClusterFilter{ZoneID: "no-such-zone"}, nil},
	} {
		if got := names(tc.filter); !slices.Equal(got, tc.want) {
			t.Errorf("List(%+v) = %v, want %v", tc.filter, got, tc.want)
		}
	}
}
