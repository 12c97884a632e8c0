package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
)

// testSSHKeys returns a fresh private key (PEM) and a public host key line.
func testSSHKeys(t *testing.T) (string, string) {
	t.Helper()
	key, hostKey := testutil.NewKeyPair(t)
	return string(key), hostKey
}

// driftSSHObject is an ssh attribute value with the given settings, the
// others null.
func driftSSHObject(t *testing.T, set map[string]attr.Value) types.Object {
	t.Helper()
	objType, ok := driftSSHAttribute(true).GetType().(types.ObjectType)
	if !ok {
		t.Fatal("ssh is not an object")
	}
	values := map[string]attr.Value{}
	for name, typ := range objType.AttrTypes {
		values[name] = typ.ValueType(context.Background()) // the zero value is null
	}
	for name, v := range set {
		values[name] = v
	}
	obj, diags := types.ObjectValue(objType.AttrTypes, values)
	if diags.HasError() {
		t.Fatal(diags)
	}
	return obj
}

func TestDriftValidationWarnings(t *testing.T) {
	t.Parallel()
	key, _ := testSSHKeys(t)
	ctx := context.Background()
	sshObject := func(insecure bool) types.Object {
		return driftSSHObject(t, map[string]attr.Value{"private_key": types.StringValue(key),
			"insecure_ignore_host_key": types.BoolValue(insecure), "timeout": newDuration("30s")})
	}
	var diags diag.Diagnostics
	validateDriftOptions(ctx, driftOptionsModel{NodeSource: types.StringNull(), SSH: sshObject(true)}, &diags)
	if diags.HasError() || len(diags.Warnings()) != 1 || diags.Warnings()[0].Summary() != "SSH Host Key Not Verified" {
		t.Fatalf("insecure_ignore_host_key: %v", diags)
	}

	diags = nil
	validateDriftOptions(ctx, driftOptionsModel{NodeSource: types.StringValue("kubeconfig"), SSH: sshObject(true)}, &diags)
	if summaries := summariesOf(diags.Warnings()); summaries != "SSH Settings Ignored; SSH Host Key Not Verified" {
		t.Fatalf("kubeconfig with ssh set: %s", summaries)
	}
}

// TestDriftValidationEmptySSHStrings: an empty private_key, host_key or
// known_hosts counts as not set at plan time, as the check reads it at
// apply time; without an SSH agent, the plan names what is missing.
func TestDriftValidationEmptySSHStrings(t *testing.T) {
	t.Setenv("SSH_AUTH_SOCK", "")
	empty := types.StringValue("")
	ssh := driftSSHObject(t, map[string]attr.Value{"private_key": empty, "host_key": empty, "known_hosts": empty})
	var diags diag.Diagnostics
	validateDriftOptions(context.Background(), driftOptionsModel{NodeSource: types.StringValue("ssh"), SSH: ssh}, &diags)
	var got []string
	for _, d := range diags.Errors() {
		withPath, ok := d.(diag.DiagnosticWithPath)
		if !ok {
			t.Fatalf("%q has no attribute path", d.Summary())
		}
		got = append(got, withPath.Path().String()+": "+d.Summary())
	}
	want := "ssh.private_key_file: Missing SSH Private Key; ssh: Missing SSH Host Key Verification"
	if strings.Join(got, "; ") != want || len(diags.Warnings()) != 0 {
		t.Fatalf("errors %q, want %q; warnings %v", got, want, diags.Warnings())
	}
}

func summariesOf(ds diag.Diagnostics) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Summary())
	}
	return strings.Join(out, "; ")
}

// TestDriftDiagnostics checks how findings reach the user: a warning by
// default, an error with fail_on_drift, both listing every finding.
func TestDriftDiagnostics(t *testing.T) {
	t.Parallel()
	res := drift.Result{ClusterState: "Running", Summary: "2 findings: 1 unmapped_vm, 1 vm_map_inconsistent",
		Findings: []drift.Finding{
			{Kind: drift.KindUnmappedVM, Message: "VM a-node-1 is named as a worker node of cluster a but is in no cluster's VM map"},
			{Kind: drift.KindVMMapInconsistent, Message: "cluster a has size 2 but its VM map has 1 worker VM"},
		}}
	want := "The drift check of cluster a (id-1) found 2 findings: 1 unmapped_vm, 1 vm_map_inconsistent:\n" +
		"  - unmapped_vm: VM a-node-1 is named as a worker node of cluster a but is in no cluster's VM map\n" +
		"  - vm_map_inconsistent: cluster a has size 2 but its VM map has 1 worker VM"

	var warn diag.Diagnostics
	addClusterDriftDiagnostics(&warn, driftClusterLabel("a", "id-1"), res, driftGate{})
	if warn.HasError() || len(warn) != 1 || warn[0].Summary() != "Cluster Drift Detected" || warn[0].Detail() != want {
		t.Fatalf("without fail_on_drift: %v", warn)
	}
	var fail diag.Diagnostics
	addClusterDriftDiagnostics(&fail, driftClusterLabel("a", "id-1"), res, driftGate{failOnDrift: true})
	if !fail.HasError() || !strings.HasPrefix(fail[0].Detail(), want) {
		t.Fatalf("with fail_on_drift: %v", fail)
	}

	// The gate fails closed: with fail_on_drift, a skipped cluster and an
	// incomplete check are errors unless allow_incomplete makes them
	// warnings; without it, warnings.
	skippedRes := drift.Result{Skipped: true, SkipReason: "cluster is Scaling"}
	incompleteRes := drift.Result{Summary: "incomplete: no finding in the views checked; Kubernetes nodes not checked: ssh: refused",
		NodeCheckError: "ssh: refused", Incomplete: []drift.IncompleteView{{View: drift.ViewNodes, Reason: "ssh: refused"}}}
	for _, tc := range []struct {
		name      string
		res       drift.Result
		gate      driftGate
		wantError bool
		want      string
	}{
		{"skipped, gate", skippedRes, driftGate{failOnDrift: true}, true, "Cluster Drift Check Skipped"},
		{"skipped, gate allowing incomplete", skippedRes, driftGate{failOnDrift: true, allowIncomplete: true}, false, "Cluster Drift Check Skipped"},
		{"skipped, no gate", skippedRes, driftGate{}, false, "Cluster Drift Check Skipped"},
		{"incomplete, gate", incompleteRes, driftGate{failOnDrift: true}, true, "Cluster Drift Check Incomplete"},
		{"incomplete, gate allowing incomplete", incompleteRes, driftGate{failOnDrift: true, allowIncomplete: true}, false, "Cluster Drift Check Incomplete"},
		{"incomplete, no gate", incompleteRes, driftGate{}, false, "Cluster Drift Check Incomplete"},
	} {
		var diags diag.Diagnostics
		addClusterDriftDiagnostics(&diags, "cluster a", tc.res, tc.gate)
		if diags.HasError() != tc.wantError || summariesOf(diags) != tc.want {
			t.Errorf("%s: %v", tc.name, diags)
		}
		if tc.wantError && !strings.Contains(diags[0].Detail(), "allow_incomplete = true") {
			t.Errorf("%s: the error does not name the opt-in: %s", tc.name, diags[0].Detail())
		}
	}
	var incomplete diag.Diagnostics
	addClusterDriftDiagnostics(&incomplete, "cluster a", incompleteRes, driftGate{failOnDrift: true})
	if d := incomplete[0].Detail(); !strings.Contains(d, "  - Kubernetes nodes (nodes) not checked: ssh: refused") ||
		!strings.Contains(d, "in_sync is false") {
		t.Errorf("incomplete detail: %s", d)
	}
}
