package provider

import (
	"reflect"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestOwnerValidators(t *testing.T) {
	t.Parallel()
	v := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	null, unknown := tftypes.NewValue(tftypes.String, nil), tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	for _, tc := range []struct {
		name                     string
		account, domain, project tftypes.Value
		// want are the owner attributes an error points at, sorted.
		want []string
	}{
		{"caller's own account", null, null, null, nil},
		{"account with domain", v("ops"), v("d-1"), null, nil},
		{"project alone", null, null, v("p-1"), nil},
		{"project with account and domain", v("ops"), v("d-1"), v("p-1"), []string{"project_id", "project_id"}},
		{"project with account", v("ops"), null, v("p-1"), []string{"account", "project_id"}},
		{"project with domain", null, v("d-1"), v("p-1"), []string{"domain_id", "project_id"}},
		{"account without domain", v("ops"), null, null, []string{"account"}},
		{"domain without account", null, v("d-1"), null, []string{"domain_id"}},
		{"unknown project with account and domain", v("ops"), v("d-1"), unknown, nil},
		{"account with unknown domain", v("ops"), unknown, null, nil},
		{"unknown account with domain", unknown, v("d-1"), null, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, d := range configErrors(t, "cks_cluster", map[string]tftypes.Value{
				"account": tc.account, "domain_id": tc.domain, "project_id": tc.project,
			}) {
				switch p := dottedPath(d.Attribute); p {
				case "account", "domain_id", "project_id":
					if d.Summary != "Invalid Attribute Combination" {
						t.Errorf("%s: %s: %s", p, d.Summary, d.Detail)
					}
					got = append(got, p)
				}
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("errors at %q, want %q", got, tc.want)
			}
		})
	}
}
