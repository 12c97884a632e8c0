package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// insecure = true warns once per run, naming the attribute: Configure warns,
// ValidateConfig (which Terraform calls several times per run) does not.

// providerConfig is a provider configuration with the given attributes set
// and every other attribute null.
func providerConfig(t *testing.T, p *cksProvider, set map[string]tftypes.Value) tfsdk.Config {
	t.Helper()
	var resp provider.SchemaResponse
	p.Schema(context.Background(), provider.SchemaRequest{}, &resp)
	typ, ok := resp.Schema.Type().TerraformType(context.Background()).(tftypes.Object)
	if !ok {
		t.Fatal("the provider schema is not an object")
	}
	values := map[string]tftypes.Value{}
	for name, attrType := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(attrType, nil)
		if v, ok := set[name]; ok {
			values[name] = v
		}
	}
	return tfsdk.Config{Schema: resp.Schema, Raw: tftypes.NewValue(typ, values)}
}

func warningsWithPath(diags diag.Diagnostics) []string {
	var out []string
	for _, d := range diags.Warnings() {
		where := ""
		if withPath, ok := d.(diag.DiagnosticWithPath); ok {
			where = withPath.Path().String()
		}
		out = append(out, where+": "+d.Summary())
	}
	return out
}

func TestInsecureWarnsInConfigureOnly(t *testing.T) {
	t.Parallel()
	p := testProvider(nil, t.TempDir())
	base := map[string]tftypes.Value{
		"api_url":    tftypes.NewValue(tftypes.String, "https://cloud.example.test/client/api"),
		"api_key":    tftypes.NewValue(tftypes.String, "k"),
		"secret_key": tftypes.NewValue(tftypes.String, "s"),
	}
	for _, tc := range []struct {
		name     string
		insecure tftypes.Value
		caFile   bool
		want     []string
		detail   string
	}{
		{"insecure", tftypes.NewValue(tftypes.Bool, true), false, []string{"insecure: TLS Verification Disabled"},
			"does not verify the TLS certificate of the CloudStack API at https://cloud.example.test/client/api"},
		{"insecure with ca_file", tftypes.NewValue(tftypes.Bool, true), true, []string{"insecure: TLS Verification Disabled"},
			"ca_file has no effect while insecure is true"},
		{"secure", tftypes.NewValue(tftypes.Bool, false), false, nil, ""},
		{"default", tftypes.NewValue(tftypes.Bool, nil), false, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			set := map[string]tftypes.Value{"insecure": tc.insecure}
			for k, v := range base {
				set[k] = v
			}
			if tc.caFile {
				caFile := filepath.Join(t.TempDir(), "ca.pem")
				if err := os.WriteFile(caFile, []byte("-"), 0o600); err != nil {
					t.Fatal(err)
				}
				set["ca_file"] = tftypes.NewValue(tftypes.String, caFile)
			}
			config := providerConfig(t, p, set)

			var validate provider.ValidateConfigResponse
			p.ValidateConfig(context.Background(), provider.ValidateConfigRequest{Config: config}, &validate)
			if len(validate.Diagnostics) != 0 {
				t.Fatalf("ValidateConfig, called several times per run, must not warn: %v", validate.Diagnostics)
			}
			var configure provider.ConfigureResponse
			p.Configure(context.Background(), provider.ConfigureRequest{Config: config}, &configure)
			if configure.Diagnostics.HasError() && !tc.caFile { // the fake CA file holds no certificate
				t.Fatalf("Configure: %v", configure.Diagnostics)
			}
			if got := warningsWithPath(configure.Diagnostics); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("Configure warnings %q, want %q", got, tc.want)
			}
			if tc.detail != "" && !strings.Contains(configure.Diagnostics.Warnings()[0].Detail(), tc.detail) {
				t.Fatalf("detail %q does not say %q", configure.Diagnostics.Warnings()[0].Detail(), tc.detail)
			}
		})
	}
}

// TestInsecureWarnsOncePerRun runs the provider binary with the real
// Terraform CLI, as users do: a plan and an apply of a configuration with
// two data sources show the warning exactly once each, naming insecure.
func TestInsecureWarnsOncePerRun(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	r := newExampleRunner(t)
	work := t.TempDir()
	config := fmt.Sprintf(`%s
provider "cks" {
  api_url  = %q
  insecure = true
}

data "cks_kubernetes_version" "a" {
  zone_id          = %q
  semantic_version = "1.33.13"
}

data "cks_kubernetes_version" "b" {
  zone_id          = %q
  semantic_version = "1.33.13"
}

output "ids" {
  value = [data.cks_kubernetes_version.a.id, data.cks_kubernetes_version.b.id]
}
`, requiredProviders, env.Info.APIURL, env.Info.ZoneID, env.Info.ZoneID)
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	creds := []string{"CLOUDSTACK_API_KEY=" + env.Info.APIKey, "CLOUDSTACK_SECRET_KEY=" + env.Info.SecretKey}
	r.terraform(work, nil, "init", "-input=false", "-no-color")
	for _, args := range [][]string{
		{"validate", "-no-color"},
		{"plan", "-input=false", "-no-color"},
		{"apply", "-auto-approve", "-input=false", "-no-color"},
	} {
		out := r.terraform(work, creds, args...)
		want := 1
		if args[0] == "validate" {
			want = 0 // validate does not configure the provider
		}
		if n := strings.Count(out, "Warning: TLS Verification Disabled"); n != want {
			t.Fatalf("terraform %s showed the warning %d times, want %d:\n%s", args[0], n, want, out)
		}
		if want == 1 && !strings.Contains(out, "insecure = true") {
			t.Fatalf("terraform %s: the warning does not point at the insecure attribute:\n%s", args[0], out)
		}
	}
}
