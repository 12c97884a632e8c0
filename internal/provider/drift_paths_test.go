package provider

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Terraform quotes no source line for a diagnostic inside ssh = { ... },
// so the acceptance tests cannot see where one points. These call the
// provider's ValidateDataResourceConfig and check the attribute path of
// every error.

// validateDriftConfig validates a configuration of typeName that sets only
// top and, when given, the ssh attributes in ssh; it returns each error as
// "path: summary", sorted.
func validateDriftConfig(t *testing.T, typeName string, top, ssh map[string]tftypes.Value) []string {
	t.Helper()
	if ssh != nil {
		sshType, ok := configType(t, typeName).AttributeTypes["ssh"].(tftypes.Object)
		if !ok {
			t.Fatalf("%s: ssh is not an object", typeName)
		}
		top["ssh"] = objectWith(sshType, ssh)
	}
	var got []string
	for _, d := range configErrors(t, typeName, top) {
		got = append(got, dottedPath(d.Attribute)+": "+d.Summary)
	}
	sort.Strings(got)
	return got
}

func TestDriftValidation_pointsAtTheAttribute(t *testing.T) {
	t.Setenv("SSH_AUTH_SOCK", "")
	key, hostKey := testSSHKeys(t)
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	withKey := func(more map[string]tftypes.Value) map[string]tftypes.Value {
		ssh := map[string]tftypes.Value{"private_key": str(key), "host_key": str(hostKey)}
		for k, v := range more {
			ssh[k] = v
		}
		return ssh
	}
	missingFile := filepath.Join(t.TempDir(), "id_cks")
	for _, tc := range []struct {
		name     string
		typeName string
		top, ssh map[string]tftypes.Value
		want     string
	}{
		{"grace period not a duration", "cks_cluster_drift", map[string]tftypes.Value{"grace_period": str("soon")}, nil,
			"grace_period: Invalid Duration"},
		{"negative grace period", "cks_clusters_drift", map[string]tftypes.Value{"grace_period": str("-5m")}, nil,
			"grace_period: Invalid Duration"},
		{"ssh timeout not a duration", "cks_cluster_drift", nil, withKey(map[string]tftypes.Value{"timeout": str("soon")}),
			"ssh.timeout: Invalid Duration"},
		{"zero ssh timeout", "cks_clusters_drift", nil, withKey(map[string]tftypes.Value{"timeout": str("0s")}),
			"ssh.timeout: Invalid Duration"},
		{"known_hosts unparsable", "cks_cluster_drift", nil,
			map[string]tftypes.Value{"private_key": str(key), "known_hosts": str("garbage")},
			"ssh.known_hosts: Invalid SSH known_hosts"},
		{"host key not a public key", "cks_clusters_drift", nil,
			map[string]tftypes.Value{"private_key": str(key), "host_key": str("ssh-ed25519 !!!")},
			"ssh.host_key: Invalid SSH Host Key"},
		{"private key and key file", "cks_cluster_drift", nil, withKey(map[string]tftypes.Value{"private_key_file": str(missingFile)}),
			"ssh.private_key: Invalid Attribute Combination"},
		{"private key file missing", "cks_clusters_drift", nil,
			map[string]tftypes.Value{"private_key_file": str(missingFile), "host_key": str(hostKey)},
			"ssh.private_key_file: Invalid SSH Private Key File"},
		{"insecure with a host key", "cks_cluster_drift", nil,
			withKey(map[string]tftypes.Value{"insecure_ignore_host_key": tftypes.NewValue(tftypes.Bool, true)}),
			"ssh.insecure_ignore_host_key: Conflicting Host Key Settings"},
		{"no host key verification", "cks_clusters_drift", nil, map[string]tftypes.Value{"private_key": str(key)},
			"ssh: Missing SSH Host Key Verification"},
		{"port out of range", "cks_cluster_drift", nil, withKey(map[string]tftypes.Value{"port": tftypes.NewValue(tftypes.Number, 70000)}),
			"ssh.port: Invalid Attribute Value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			top := map[string]tftypes.Value{}
			if tc.typeName == "cks_cluster_drift" {
				top["cluster_id"] = str("c")
			}
			for k, v := range tc.top {
				top[k] = v
			}
			got := validateDriftConfig(t, tc.typeName, top, tc.ssh)
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("errors %q, want only %q", got, tc.want)
			}
		})
	}
}
