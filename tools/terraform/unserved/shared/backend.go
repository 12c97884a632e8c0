// Package unserved is the backend that stands in, in the Terraform CLI that
// tools/terraform builds, for each remote state backend Terraform keeps in a
// nested module of its own: the Go module proxy serves
// github.com/hashicorp/terraform but not those modules. It refuses to be
// configured, by name, so a configuration that names one fails at init; the
// provider's tests use the local backend.
package unserved

import (
	"fmt"

	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/configs/configschema"
	"github.com/hashicorp/terraform/internal/states/statemgr"
	"github.com/hashicorp/terraform/internal/tfdiags"
	"github.com/zclconf/go-cty/cty"
)

type unserved struct{ name string }

// New returns the stand-in for the backend called name in a configuration.
func New(name string) backend.Backend { return unserved{name: name} }

func (b unserved) err() error {
	return fmt.Errorf("the %q backend is not in this test build of Terraform (tools/terraform): the Go module proxy does not serve its module", b.name)
}

func (unserved) ConfigSchema() *configschema.Block { return &configschema.Block{} }

func (b unserved) PrepareConfig(v cty.Value) (cty.Value, tfdiags.Diagnostics) {
	var diags tfdiags.Diagnostics
	return v, diags.Append(b.err())
}

func (b unserved) Configure(cty.Value) tfdiags.Diagnostics {
	var diags tfdiags.Diagnostics
	return diags.Append(b.err())
}

func (b unserved) StateMgr(string) (statemgr.Full, tfdiags.Diagnostics) {
	var diags tfdiags.Diagnostics
	return nil, diags.Append(b.err())
}

func (b unserved) DeleteWorkspace(string, bool) tfdiags.Diagnostics {
	var diags tfdiags.Diagnostics
	return diags.Append(b.err())
}

func (b unserved) Workspaces() ([]string, tfdiags.Diagnostics) {
	var diags tfdiags.Diagnostics
	return nil, diags.Append(b.err())
}
