package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Validation through the provider's protocol server, as Terraform calls it:
// schema validators, custom types and ValidateConfig together, with the
// attribute path of each diagnostic, which Terraform does not always show.

func testProtocolServer(t *testing.T) tfprotov6.ProviderServer {
	t.Helper()
	server, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	return server
}

// configType is the object type of the configuration of a resource or data
// source.
func configType(t *testing.T, typeName string) tftypes.Object {
	t.Helper()
	typ, _ := configTypeOf(t, typeName)
	return typ
}

// configTypeOf is configType, and whether typeName is a resource.
func configTypeOf(t *testing.T, typeName string) (tftypes.Object, bool) {
	t.Helper()
	schemas, err := testProtocolServer(t).GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	s, isResource := schemas.ResourceSchemas[typeName]
	if !isResource {
		s = schemas.DataSourceSchemas[typeName]
	}
	if s == nil {
		t.Fatalf("no resource or data source %s", typeName)
	}
	typ, ok := s.ValueType().(tftypes.Object)
	if !ok {
		t.Fatalf("%s: the configuration is not an object", typeName)
	}
	return typ, isResource
}

// configErrors validates a configuration of typeName that sets only the
// given attributes, every other null, and returns its errors.
func configErrors(t *testing.T, typeName string, set map[string]tftypes.Value) []*tfprotov6.Diagnostic {
	t.Helper()
	ctx := context.Background()
	typ, isResource := configTypeOf(t, typeName)
	config, err := tfprotov6.NewDynamicValue(typ, objectWith(typ, set))
	if err != nil {
		t.Fatal(err)
	}
	server := testProtocolServer(t)
	var diags []*tfprotov6.Diagnostic
	if isResource {
		resp, err := server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: &config})
		if err != nil {
			t.Fatal(err)
		}
		diags = resp.Diagnostics
	} else {
		resp, err := server.ValidateDataResourceConfig(ctx, &tfprotov6.ValidateDataResourceConfigRequest{TypeName: typeName, Config: &config})
		if err != nil {
			t.Fatal(err)
		}
		diags = resp.Diagnostics
	}
	var errs []*tfprotov6.Diagnostic
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			errs = append(errs, d)
		}
	}
	return errs
}

// objectWith is an object of typ with the given attributes and every other null.
func objectWith(typ tftypes.Object, set map[string]tftypes.Value) tftypes.Value {
	values := map[string]tftypes.Value{}
	for name, attrType := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(attrType, nil)
	}
	for name, v := range set {
		values[name] = v
	}
	return tftypes.NewValue(typ, values)
}

// dottedPath is a diagnostic's attribute path as Terraform writes it, such
// as ssh.timeout.
func dottedPath(p *tftypes.AttributePath) string {
	if p == nil {
		return "(none)"
	}
	var names []string
	for _, step := range p.Steps() {
		if name, ok := step.(tftypes.AttributeName); ok {
			names = append(names, string(name))
		}
	}
	return strings.Join(names, ".")
}
