package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestValidateOwnership(t *testing.T) {
	t.Parallel()
	v, null, unknown := types.StringValue, types.StringNull(), types.StringUnknown()
	for _, tc := range []struct {
		name                     string
		account, domain, project types.String
		wantPath, wantSummary    string
	}{
		{"caller's own account", null, null, null, "", ""},
		{"account with domain", v("ops"), v("d-1"), null, "", ""},
		{"project alone", null, null, v("p-1"), "", ""},
		{"project with account and domain", v("ops"), v("d-1"), v("p-1"), "project_id", "Conflicting Cluster Owner"},
		{"project with account", v("ops"), null, v("p-1"), "project_id", "Conflicting Cluster Owner"},
		{"project with domain", null, v("d-1"), v("p-1"), "project_id", "Conflicting Cluster Owner"},
		{"account without domain", v("ops"), null, null, "account", "Missing Domain For Account"},
		{"domain without account", null, v("d-1"), null, "domain_id", "Domain Without Account"},
		{"unknown project with account and domain", v("ops"), v("d-1"), unknown, "", ""},
		{"account with unknown domain", v("ops"), unknown, null, "", ""},
		{"unknown account with domain", unknown, v("d-1"), null, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var diags diag.Diagnostics
			validateOwnership(tc.account, tc.domain, tc.project, &diags)
			if tc.wantPath == "" {
				if diags.HasError() {
					t.Fatalf("refused: %v", diags)
				}
				return
			}
			if len(diags) != 1 || diags[0].Summary() != tc.wantSummary {
				t.Fatalf("diagnostics %v, want one %q", diags, tc.wantSummary)
			}
			if p, ok := diags[0].(diag.DiagnosticWithPath); !ok || p.Path().String() != tc.wantPath {
				t.Fatalf("diagnostic %v is not at %s", diags[0], tc.wantPath)
			}
		})
	}
}
