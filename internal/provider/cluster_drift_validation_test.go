package provider

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// testSSHKeys returns a fresh private key (PEM) and a public host key line.
func testSSHKeys(t *testing.T) (string, string) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(block)), strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub)))
}

// TestClusterDriftValidationErrors runs the real Terraform CLI against a
// provider whose API is unreachable: every mistake must be caught at plan,
// before any request, and reported against the attribute at fault.
func TestClusterDriftValidationErrors(t *testing.T) {
	t.Parallel()
	key, hostKey := testSSHKeys(t)
	sshBlock := func(lines ...string) string {
		return "  ssh {\n    " + strings.Join(lines, "\n    ") + "\n  }\n"
	}
	keyLine := fmt.Sprintf("private_key = %q", key)
	hostKeyLine := fmt.Sprintf("host_key = %q", hostKey)
	single := func(body string) string {
		return "data \"cks_cluster_drift\" \"bad\" {\n  cluster_id = \"c\"\n" + body + "}\n"
	}
	fleet := func(body string) string { return "data \"cks_clusters_drift\" \"bad\" {\n" + body + "}\n" }
	cases := []struct {
		name, config, want string
	}{
		{"grace period not a duration", single(`  grace_period = "15 minutes"` + "\n"),
			`Invalid Grace Period.*grace_period\s+= "15 minutes".*not a duration`},
		{"negative grace period", single(`  grace_period = "-5m"` + "\n"), `Invalid Grace Period.*grace_period.*negative`},
		{"ssh node source without ssh block", single(`  node_source = "ssh"` + "\n"),
			`Missing SSH Block.*node_source\s+= "ssh".*needs\s+an\s+ssh\s+block`},
		{"unknown node source", single(`  node_source = "sometimes"` + "\n"), `Invalid Attribute Value Match.*node_source.*kubeconfig`},
		{"empty cluster id", "data \"cks_cluster_drift\" \"bad\" {\n  cluster_id = \"\"\n}\n", `Invalid Attribute Value Length.*cluster_id`},
		{"host key and known_hosts", single(sshBlock(keyLine, hostKeyLine, `known_hosts = "h ssh-ed25519 AAAA"`)),
			`Invalid Attribute Combination.*host_key.*known_hosts`},
		{"port out of range", single(sshBlock(keyLine, hostKeyLine, "port = 70000")),
			`Invalid Attribute Value.*port\s+= 70000.*between 1 and 65535`},
		{"no host key verification", single(sshBlock(keyLine)), `Missing SSH Host Key Verification.*host_key.*known_hosts`},
		{"insecure together with a host key", single(sshBlock(keyLine, hostKeyLine, "insecure_ignore_host_key = true")),
			`Conflicting Host Key Settings.*insecure_ignore_host_key\s+= true`},
		{"private key missing", single(sshBlock(hostKeyLine)), `Missing SSH Private Key.*ssh`},
		{"private key not PEM", single(sshBlock(`private_key = "not a key"`, hostKeyLine)),
			`Invalid SSH Private Key.*private_key.*not a PEM private key`},
		{"host key not a public key", single(sshBlock(keyLine, `host_key = "ssh-ed25519 !!!"`)),
			`Invalid SSH Host Key.*host_key\s+= "ssh-ed25519 !!!".*authorized_keys line`},
		{"timeout not a duration", single(sshBlock(keyLine, hostKeyLine, `timeout = "soon"`)),
			`Invalid SSH Timeout.*timeout\s+= "soon"`},
		{"zero timeout", single(sshBlock(keyLine, hostKeyLine, `timeout = "0s"`)), `Invalid SSH Timeout.*longer than zero`},
		{"unknown argument", single(`  graceperiod = "5m"` + "\n"), `Unsupported argument.*graceperiod`},
		{"fleet name regex", fleet(`  name_regex = "prod-("` + "\n"), `Invalid Regular Expression.*name_regex.*missing closing \)`},
		{"fleet concurrency", fleet("  concurrency = 0\n"), `Invalid Attribute Value.*concurrency.*between 1 and 64`},
		{"fleet account and project", fleet("  account = \"a\"\n  project_id = \"p\"\n"), `Invalid Attribute Combination.*account`},
		{"fleet has no host override", fleet(sshBlock(keyLine, hostKeyLine, `host = "10.0.0.1"`)), `Unsupported argument.*host`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			accTest(t, resource.TestCase{Steps: []resource.TestStep{{
				Config: `
provider "cks" {
  api_url    = "http://127.0.0.1:1/client/api"
  api_key    = "k"
  secret_key = "s"
}
` + tc.config,
				PlanOnly: true,
				// Terraform wraps long lines: any space may be a line break.
				ExpectError: regexp.MustCompile(`(?s)` + strings.ReplaceAll(tc.want, " ", `\s+`)),
			}}})
		})
	}
}

// TestDriftValidationWarnings covers what Terraform shows as warnings,
// which the acceptance framework cannot observe.
func TestDriftValidationWarnings(t *testing.T) {
	t.Parallel()
	key, _ := testSSHKeys(t)
	sshObject := func(insecure bool) types.Object {
		attrTypes := map[string]attr.Type{}
		for name, a := range driftSSHBlock(true).Attributes {
			attrTypes[name] = a.GetType()
		}
		values := map[string]attr.Value{}
		for name, typ := range attrTypes {
			values[name] = nullOf(typ)
		}
		values["private_key"] = types.StringValue(key)
		values["insecure_ignore_host_key"] = types.BoolValue(insecure)
		obj, diags := types.ObjectValue(attrTypes, values)
		if diags.HasError() {
			t.Fatal(diags)
		}
		return obj
	}
	var diags diag.Diagnostics
	validateDriftOptions(driftOptionsModel{NodeSource: types.StringNull(), SSH: sshObject(true)}, &diags)
	if diags.HasError() || len(diags.Warnings()) != 1 || diags.Warnings()[0].Summary() != "SSH Host Key Not Verified" {
		t.Fatalf("insecure_ignore_host_key: %v", diags)
	}

	diags = nil
	validateDriftOptions(driftOptionsModel{NodeSource: types.StringValue("kubeconfig"), SSH: sshObject(true)}, &diags)
	if summaries := summariesOf(diags.Warnings()); summaries != "SSH Block Ignored; SSH Host Key Not Verified" {
		t.Fatalf("kubeconfig with an ssh block: %s", summaries)
	}
}

func nullOf(t attr.Type) attr.Value {
	switch t {
	case types.Int64Type:
		return types.Int64Null()
	case types.BoolType:
		return types.BoolNull()
	default:
		return types.StringNull()
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
	res := drift.Result{ClusterState: "Running", Summary: "2 findings: 1 unmapped_vm, 1 size_mismatch",
		Findings: []drift.Finding{
			{Kind: drift.KindUnmappedVM, Message: "VM a-node-1 is named as a worker node of cluster a but is in no cluster's VM map"},
			{Kind: drift.KindSizeMismatch, Message: "cluster a has size 2 but its VM map has 1 worker VM"},
		}}
	want := "The drift check of cluster a (id-1) found 2 findings: 1 unmapped_vm, 1 size_mismatch:\n" +
		"  - unmapped_vm: VM a-node-1 is named as a worker node of cluster a but is in no cluster's VM map\n" +
		"  - size_mismatch: cluster a has size 2 but its VM map has 1 worker VM"

	var warn diag.Diagnostics
	addClusterDriftDiagnostics(&warn, driftClusterLabel("a", "id-1"), res, false)
	if warn.HasError() || len(warn) != 1 || warn[0].Summary() != "Cluster Drift Detected" || warn[0].Detail() != want {
		t.Fatalf("without fail_on_drift: %v", warn)
	}
	var fail diag.Diagnostics
	addClusterDriftDiagnostics(&fail, driftClusterLabel("a", "id-1"), res, true)
	if !fail.HasError() || !strings.HasPrefix(fail[0].Detail(), want) {
		t.Fatalf("with fail_on_drift: %v", fail)
	}

	var skipped diag.Diagnostics
	addClusterDriftDiagnostics(&skipped, "cluster a", drift.Result{Skipped: true, SkipReason: "cluster is Scaling"}, true)
	if skipped.HasError() || summariesOf(skipped) != "Cluster Drift Check Skipped" {
		t.Fatalf("skipped: %v", skipped)
	}
	var clean diag.Diagnostics
	addClusterDriftDiagnostics(&clean, "cluster a", drift.Result{InSync: true, NodeCheckError: "ssh: refused"}, true)
	if clean.HasError() || summariesOf(clean) != "Kubernetes Nodes Not Checked" {
		t.Fatalf("in sync without nodes: %v", clean)
	}
}
