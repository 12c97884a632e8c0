package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// The bad-input suite: every invalid configuration of the provider, its
// resource, its data sources and its ephemeral resource that must be refused
// at plan time, in one table. Each must be reported with the attribute at
// fault (Terraform quotes its line, or the message names its path) and the
// rule broken, before any API call: the provider points at a server that
// records every request, and none may arrive.
//
// It is the one table of such cases for the whole provider; entries marked
// new go beyond the per-object lists of the issues.

// relBadInput is one invalid configuration.
type relBadInput struct {
	name string
	// provider is the provider block's body; empty means a valid one
	// pointing at the recording server.
	provider string
	// config is what follows the provider block.
	config string
	// want are, in order: the summary, where (the quoted source line or
	// the attribute path in the message), the rule. Terraform quotes the
	// line of a top-level attribute, but not of one inside a nested
	// attribute's object (autoscaling, timeouts, ssh): there the message
	// names the path, or for timeouts quotes the value.
	want []string
}

// Shorthands for the blocks the cases put their mistakes in.
func relClusterBlock(body string) string {
	return "resource \"cks_cluster\" \"bad\" {\n  name = \"bad\"\n  zone_id = \"z\"\n  kubernetes_version_id = \"v\"\n" + body + "\n}\n"
}

func relClusterBlockWithOffering(body string) string {
	return relClusterBlock("  service_offering_id = \"o\"\n" + body)
}

func relDriftBlock(body string) string {
	return "data \"cks_cluster_drift\" \"bad\" {\n  cluster_id = \"c\"\n" + body + "\n}\n"
}

func relFleetBlock(body string) string {
	return "data \"cks_clusters_drift\" \"bad\" {\n" + body + "\n}\n"
}

func relSSHBlock(lines ...string) string {
	return "  ssh = {\n    " + strings.Join(lines, "\n    ") + "\n  }\n"
}

// relVersionLookup makes Terraform configure the provider, so that the
// provider's own checks run.
const relVersionLookup = "data \"cks_kubernetes_version\" \"v\" {\n  zone_id = \"zone\"\n  semantic_version = \"1.33.13\"\n}\n"

func relBadInputs(t *testing.T) []relBadInput {
	key, hostKey := testSSHKeys(t)
	keyLine := fmt.Sprintf("private_key = %q", key)
	hostKeyLine := fmt.Sprintf("host_key = %q", hostKey)
	dir := t.TempDir()
	cmk := filepath.Join(dir, "cmk-config")
	if err := os.WriteFile(cmk, []byte("[core]\nprofile = lab\n[lab]\nurl = http://127.0.0.1:1/client/api\napikey = k\nsecretkey = s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keys := "  api_key = \"k\"\n  secret_key = \"s\"\n"
	missingKeyFile := filepath.Join(dir, "missing", "id_cks")
	notAKeyFile := filepath.Join(dir, "not-a-key")
	if err := os.WriteFile(notAKeyFile, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "id_cks")
	if err := os.WriteFile(keyFile, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	keyFileLine := fmt.Sprintf("private_key_file = %q", keyFile)
	withURL := func(extra string) string { return "  api_url = \"API_URL\"\n" + keys + extra }

	return []relBadInput{
		// The provider.
		{name: "provider: api_url not http(s)", provider: `  api_url = "ftp://cloud.example.test"` + "\n" + keys, config: relVersionLookup,
			want: []string{"Invalid CloudStack API URL", `api_url = "ftp://cloud.example.test"`, "must use the http or https scheme"}},
		{name: "provider: api_url without host", provider: `  api_url = "https:///client/api"` + "\n" + keys, config: relVersionLookup,
			want: []string{"Invalid CloudStack API URL", `api_url = "https:///client/api"`, "has no host"}},
		{name: "provider: api_url with credentials (new)", provider: `  api_url = "https://me:pw@cloud.example.test/client/api"` + "\n" + keys,
			config: relVersionLookup, want: []string{"Invalid CloudStack API URL", `api_url = "https://me:pw@cloud.example.test/client/api"`,
				"must not contain user credentials"}},
		{name: "provider: no keys anywhere", provider: "  api_url = \"API_URL\"\n", config: relVersionLookup,
			want: []string{"Missing CloudStack Api key", "CLOUDSTACK_API_KEY", "Missing CloudStack Secret key", "CLOUDSTACK_SECRET_KEY"}},
		{name: "provider: empty secret_key", provider: "  api_url = \"API_URL\"\n  api_key = \"k\"\n  secret_key = \"\"\n", config: relVersionLookup,
			want: []string{"Invalid Attribute Value Match", `secret_key = ""`, "Attribute secret_key must not be empty when set"}},
		{name: "provider: empty api_key (new)", provider: "  api_url = \"API_URL\"\n  api_key = \"\"\n  secret_key = \"s\"\n", config: relVersionLookup,
			want: []string{"Invalid Attribute Value Match", `api_key = ""`, "Attribute api_key must not be empty when set"}},
		{name: "provider: unreadable cmk config", provider: `  config = "/nonexistent/cmk/config"`, config: relVersionLookup,
			want: []string{"Unreadable CloudMonkey Configuration", `config = "/nonexistent/cmk/config"`, "no such file"}},
		{name: "provider: unknown cmk profile (new)", provider: fmt.Sprintf("  config = %q\n  profile = \"staging\"\n", cmk), config: relVersionLookup,
			want: []string{"CloudMonkey Profile Not Found", `profile = "staging"`, `profile "staging" not found; available profiles: lab`}},
		{name: "provider: unreadable ca_file (new)", provider: withURL(`  ca_file = "/nonexistent/ca.pem"`), config: relVersionLookup,
			want: []string{"Unreadable CA File", `ca_file = "/nonexistent/ca.pem"`, "cannot be read: no such file"}},
		{name: "provider: request_timeout 0 (new)", provider: withURL("  request_timeout = 0"), config: relVersionLookup,
			want: []string{"Invalid Attribute Value", "request_timeout = 0", "Attribute request_timeout value must be between 1 and 3600, got: 0"}},
		{name: "provider: etcd_ssh_start_port out of range", provider: withURL("  etcd_ssh_start_port = 80"), config: relVersionLookup,
			want: []string{"Invalid Attribute Value", "etcd_ssh_start_port = 80", "Attribute etcd_ssh_start_port value must be between 1024 and 65535, got: 80"}},

		// cks_kubernetes_version.
		{name: "cks_kubernetes_version: bad semantic version", config: "data \"cks_kubernetes_version\" \"bad\" {\n  zone_id = \"z\"\n  semantic_version = \"1.33.x\"\n}\n",
			want: []string{"Invalid Semantic Version", `semantic_version = "1.33.x"`}},
		{name: "cks_kubernetes_version: name and semantic version", config: "data \"cks_kubernetes_version\" \"bad\" {\n  zone_id = \"z\"\n  semantic_version = \"1.33.1\"\n  name = \"x\"\n}\n",
			want: []string{"Invalid Attribute Combination", `semantic_version = "1.33.1"`, "These attributes cannot be configured together: [semantic_version,name]"}},
		{name: "cks_kubernetes_version: neither name nor semantic version (new)", config: "data \"cks_kubernetes_version\" \"bad\" {\n  zone_id = \"z\"\n}\n",
			want: []string{"Missing Attribute Configuration", "At least one of these attributes must be configured: [semantic_version,name,semantic_version_prefix,latest]"}},
		{name: "cks_kubernetes_version: a prefix that is no version (new)", config: "data \"cks_kubernetes_version\" \"bad\" {\n  zone_id = \"z\"\n  semantic_version_prefix = \"1.x\"\n}\n",
			want: []string{"Invalid Version Prefix", `semantic_version_prefix = "1.x"`, `"1.x" is not a version prefix like 1.33`}},
		{name: "cks_kubernetes_versions: upgradable_from that is no version (new)", config: "data \"cks_kubernetes_versions\" \"bad\" {\n  zone_id = \"z\"\n  upgradable_from = \"latest\"\n}\n",
			want: []string{"Invalid Semantic Version", `upgradable_from = "latest"`}},
		{name: "cks_zone: name and name_regex (new)", config: "data \"cks_zone\" \"bad\" {\n  name = \"z\"\n  name_regex = \"z\"\n}\n",
			want: []string{"Invalid Attribute Combination", "Exactly one of these attributes must be configured: [name,name_regex]"}},
		{name: "cks_network: a name_regex that does not compile (new)", config: "data \"cks_network\" \"bad\" {\n  name_regex = \"(\"\n}\n",
			want: []string{"Invalid Regular Expression", `name_regex = "("`}},
		{name: "cks_kubernetes_version: empty zone_id (new)", config: "data \"cks_kubernetes_version\" \"bad\" {\n  zone_id = \"\"\n  name = \"x\"\n}\n",
			want: []string{"Invalid Attribute Value Length", `zone_id = ""`, "Attribute zone_id string length must be at least 1, got: 0"}},

		// cks_cluster (data source).
		{name: "data cks_cluster: id and name (new)", config: "data \"cks_cluster\" \"bad\" {\n  id = \"i\"\n  name = \"n\"\n}\n",
			want: []string{"Invalid Attribute Combination", `id = "i"`, "Exactly one of these attributes must be configured: [id,name]"}},
		{name: "data cks_cluster: neither id nor name (new)", config: "data \"cks_cluster\" \"bad\" {\n}\n",
			want: []string{"Missing Attribute Configuration", "Exactly one of these attributes must be configured: [id,name]"}},
		{name: "data cks_cluster: empty name (new)", config: "data \"cks_cluster\" \"bad\" {\n  name = \"\"\n}\n",
			want: []string{"Invalid Attribute Value Length", `name = ""`, "Attribute name string length must be at least 1, got: 0"}},

		// cks_cluster (resource).
		{name: "cks_cluster: size 0", config: relClusterBlockWithOffering("  size = 0"),
			want: []string{"Invalid Attribute Value", "size = 0", "Attribute size value must be at least 1, got: 0"}},
		{name: "cks_cluster: control_nodes 0", config: relClusterBlockWithOffering("  size = 1\n  control_nodes = 0"),
			want: []string{"Invalid Attribute Value", "control_nodes = 0", "Attribute control_nodes value must be at least 1, got: 0"}},
		{name: "cks_cluster: etcd_nodes below 0", config: relClusterBlockWithOffering("  size = 1\n  etcd_nodes = -1"),
			want: []string{"Invalid Attribute Value", "etcd_nodes = -1", "Attribute etcd_nodes value must be at least 0, got: -1"}},
		{name: "cks_cluster: root disk below 8", config: relClusterBlockWithOffering("  size = 1\n  node_root_disk_size = 7"),
			want: []string{"Invalid Attribute Value", "node_root_disk_size = 7", "Attribute node_root_disk_size value must be at least 8, got: 7"}},
		{name: "cks_cluster: state Paused", config: relClusterBlockWithOffering("  size = 1\n  state = \"Paused\""),
			want: []string{"Invalid Attribute Value Match", `state = "Paused"`, `Attribute state value must be one of: ["Running" "Stopped"], got: "Paused"`}},
		{name: "cks_cluster: autoscaling min_size 0", config: relClusterBlockWithOffering("  autoscaling = {\n    enabled = true\n    min_size = 0\n    max_size = 3\n  }"),
			want: []string{"Invalid Attribute Value", "Attribute autoscaling.min_size value must be at least 1, got: 0"}},
		{name: "cks_cluster: autoscaling min above max", config: relClusterBlockWithOffering("  autoscaling = {\n    enabled = true\n    min_size = 3\n    max_size = 2\n  }"),
			want: []string{"Invalid Autoscaling Range", "autoscaling.max_size must be greater than min_size, got max_size 2 and min_size 3"}},
		{name: "cks_cluster: autoscaling min equals max", config: relClusterBlockWithOffering("  autoscaling = {\n    enabled = true\n    min_size = 2\n    max_size = 2\n  }"),
			want: []string{"Invalid Autoscaling Range", "autoscaling.max_size must be greater than min_size, got max_size 2 and min_size 2"}},
		{name: "cks_cluster: autoscaling with size", config: relClusterBlockWithOffering("  size = 2\n  autoscaling = { enabled = true, min_size = 1, max_size = 3 }"),
			want: []string{"Size Conflicts With Autoscaling", "size = 2", "size must not be set while autoscaling is enabled"}},
		{name: "cks_cluster: autoscaling without max_size", config: relClusterBlockWithOffering("  autoscaling = { enabled = true, min_size = 1 }"),
			want: []string{"Missing Autoscaling Maximum", "autoscaling.max_size (greater than min_size) is required when autoscaling is enabled"}},
		{name: "cks_cluster: autoscaling without min_size (new)", config: relClusterBlockWithOffering("  autoscaling = { enabled = true, max_size = 3 }"),
			want: []string{"Missing Autoscaling Minimum", "autoscaling.min_size (at least 1) is required when autoscaling is enabled"}},
		{name: "cks_cluster: unknown per-role offering", config: relClusterBlockWithOffering("  size = 1\n  gpu_offering_id = \"g\""),
			want: []string{"Unsupported argument", `gpu_offering_id = "g"`, `An argument named "gpu_offering_id" is not expected here`}},
		{name: "cks_cluster: size missing", config: relClusterBlockWithOffering(""),
			want: []string{"Missing Cluster Size", "size (the number of worker nodes, at least 1) is required unless autoscaling is enabled"}},
		{name: "cks_cluster: name empty", config: strings.Replace(relClusterBlockWithOffering("  size = 1"), `name = "bad"`, `name = ""`, 1),
			want: []string{"Invalid Attribute Value Length", `name = ""`, "Attribute name string length must be between 1 and 255, got: 0"}},
		{name: "cks_cluster: name too long", config: strings.Replace(relClusterBlockWithOffering("  size = 1"), `name = "bad"`, fmt.Sprintf("name = %q", strings.Repeat("n", 256)), 1),
			want: []string{"Invalid Attribute Value Length", "Attribute name string length must be between 1 and 255, got: 256"}},
		{name: "cks_cluster: name blank", config: strings.Replace(relClusterBlockWithOffering("  size = 1"), `name = "bad"`, `name = "   "`, 1),
			want: []string{"Invalid Attribute Value Match", `name = "   "`, "Attribute name must not be blank (only white space)"}},
		{name: "cks_cluster: no offering", config: relClusterBlock("  size = 1"),
			want: []string{"Missing Compute Offering", "service_offering_id is required unless every node type has its own offering; missing: control_offering_id, worker_offering_id"}},
		{name: "cks_cluster: etcd nodes without their offering", config: relClusterBlock("  size = 1\n  etcd_nodes = 3\n  control_offering_id = \"c\"\n  worker_offering_id = \"w\""),
			want: []string{"Missing Compute Offering", "missing: etcd_offering_id"}},
		{name: "cks_cluster: empty kubernetes_version_id (new)", config: strings.Replace(relClusterBlockWithOffering("  size = 1"), `kubernetes_version_id = "v"`, `kubernetes_version_id = ""`, 1),
			want: []string{"Invalid Attribute Value Length", `kubernetes_version_id = ""`, "Attribute kubernetes_version_id string length must be at least 1, got: 0"}},
		{name: "cks_cluster: blank cni_configuration_id (new)", config: relClusterBlockWithOffering("  size = 1\n  cni_configuration_id = \" \""),
			want: []string{"Invalid Attribute Value Match", `cni_configuration_id = " "`, "must not be blank"}},
		{name: "cks_cluster: empty keypair (new)", config: relClusterBlockWithOffering("  size = 1\n  keypair = \"\""),
			want: []string{"Invalid Attribute Value Length", `keypair = ""`, "Attribute keypair string length must be at least 1, got: 0"}},
		{name: "cks_cluster: timeout not a duration (new)", config: relClusterBlockWithOffering("  size = 1\n  timeouts = {\n    create = \"soon\"\n  }"),
			want: []string{"Invalid Timeout", `timeouts.create is "soon", which is not a duration`}},
		{name: "cks_cluster: zone_id missing (new)", config: strings.Replace(relClusterBlockWithOffering("  size = 1"), "  zone_id = \"z\"\n", "", 1),
			want: []string{"Missing required argument", `The argument "zone_id" is required, but no definition was found`}},
		{name: "cks_cluster: timeout of zero", config: relClusterBlockWithOffering("  size = 1\n  timeouts = {\n    create = \"0s\"\n  }"),
			want: []string{"Invalid Timeout", `timeouts.create is "0s": it must be longer than zero`}},
		{name: "cks_cluster: negative timeout", config: relClusterBlockWithOffering("  size = 1\n  timeouts = {\n    delete = \"-5m\"\n  }"),
			want: []string{"Invalid Timeout", `timeouts.delete is "-5m": it is negative`}},
		{name: "cks_cluster: project_id with account and domain_id",
			config: relClusterBlockWithOffering("  size = 1\n  account = \"ops\"\n  domain_id = \"d\"\n  project_id = \"p\""),
			want: []string{"Invalid Attribute Combination", `project_id = "p"`,
				`Attribute "account" cannot be specified when "project_id" is specified`}},
		{name: "cks_cluster: project_id with domain_id", config: relClusterBlockWithOffering("  size = 1\n  domain_id = \"d\"\n  project_id = \"p\""),
			want: []string{"Invalid Attribute Combination", `project_id = "p"`, `Attribute "domain_id" cannot be specified when "project_id" is specified`}},
		{name: "cks_cluster: account without domain_id", config: relClusterBlockWithOffering("  size = 1\n  account = \"ops\""),
			want: []string{"Invalid Attribute Combination", `account = "ops"`, `Attribute "domain_id" must be specified when "account" is specified`}},
		{name: "cks_cluster: domain_id without account", config: relClusterBlockWithOffering("  size = 1\n  domain_id = \"d\""),
			want: []string{"Invalid Attribute Combination", `domain_id = "d"`, `Attribute "account" must be specified when "domain_id" is specified`}},

		// cks_cluster_drift.
		{name: "cks_cluster_drift: grace period not a duration", config: relDriftBlock(`  grace_period = "15 minutes"`),
			want: []string{"Invalid Duration", `grace_period = "15 minutes"`, `grace_period is "15 minutes", which is not a duration`}},
		{name: "cks_cluster_drift: negative grace period", config: relDriftBlock(`  grace_period = "-5m"`),
			want: []string{"Invalid Duration", `grace_period = "-5m"`, `grace_period is "-5m": it is negative`}},
		{name: "cks_cluster_drift: node source ssh without ssh", config: relDriftBlock(`  node_source = "ssh"`),
			want: []string{"Missing SSH Settings", `node_source = "ssh"`, "needs ssh = { ... }"}},
		{name: "cks_cluster_drift: unknown node source", config: relDriftBlock(`  node_source = "sometimes"`),
			want: []string{"Invalid Attribute Value Match", `node_source = "sometimes"`, "Attribute node_source value must be one of:"}},
		{name: "cks_cluster_drift: empty cluster id", config: "data \"cks_cluster_drift\" \"bad\" {\n  cluster_id = \"\"\n}\n",
			want: []string{"Invalid Attribute Value Length", `cluster_id = ""`, "Attribute cluster_id string length must be at least 1, got: 0"}},
		{name: "cks_cluster_drift: host key and known_hosts", config: relDriftBlock(relSSHBlock(keyLine, hostKeyLine, `known_hosts = "h ssh-ed25519 AAAA"`)),
			want: []string{"Invalid Attribute Combination", "Attribute \"ssh.known_hosts\" cannot be specified when \"ssh.host_key\" is specified"}},
		{name: "cks_cluster_drift: ssh port out of range", config: relDriftBlock(relSSHBlock(keyLine, hostKeyLine, "port = 70000")),
			want: []string{"Invalid Attribute Value", "Attribute ssh.port value must be between 1 and 65535, got: 70000"}},
		{name: "cks_cluster_drift: no host key verification", config: relDriftBlock(relSSHBlock(keyLine)),
			want: []string{"Missing SSH Host Key Verification", "set ssh.host_key", "or ssh.known_hosts", "ssh.insecure_ignore_host_key = true"}},
		{name: "cks_cluster_drift: insecure together with a host key", config: relDriftBlock(relSSHBlock(keyLine, hostKeyLine, "insecure_ignore_host_key = true")),
			want: []string{"Conflicting Host Key Settings", "ssh.insecure_ignore_host_key = true", "set only one"}},
		{name: "cks_cluster_drift: private key missing", config: relDriftBlock(relSSHBlock(hostKeyLine)),
			want: []string{"Missing SSH Private Key", "ssh needs the private key of the cluster's key pair",
				"ssh.private_key_file", "SSH_AUTH_SOCK is not set"}},
		{name: "cks_cluster_drift: private key and private key file", config: relDriftBlock(relSSHBlock(keyLine, keyFileLine, hostKeyLine)),
			want: []string{"Invalid Attribute Combination", `Attribute "ssh.private_key_file" cannot be specified when "ssh.private_key" is specified`}},
		{name: "cks_cluster_drift: private key file missing", config: relDriftBlock(relSSHBlock(fmt.Sprintf("private_key_file = %q", missingKeyFile), hostKeyLine)),
			want: []string{"Invalid SSH Private Key File", "ssh.private_key_file must name a readable", "no such file or directory"}},
		{name: "cks_cluster_drift: private key file not a key", config: relDriftBlock(relSSHBlock(fmt.Sprintf("private_key_file = %q", notAKeyFile), hostKeyLine)),
			want: []string{"Invalid SSH Private Key File", "ssh.private_key_file must name a readable", "is not a PEM-encoded SSH private key"}},
		{name: "cks_cluster_drift: known_hosts unparsable", config: relDriftBlock(relSSHBlock(keyFileLine, `known_hosts = "garbage"`)),
			want: []string{"Invalid SSH known_hosts", "ssh.known_hosts must hold", "line 1: an entry needs host patterns, a key type and a key"}},
		{name: "cks_cluster_drift: known_hosts without entries", config: relDriftBlock(relSSHBlock(keyFileLine, `known_hosts = "# none yet"`)),
			want: []string{"Invalid SSH known_hosts", "ssh.known_hosts must hold", "it has no entries"}},
		{name: "cks_cluster_drift: negative ssh timeout", config: relDriftBlock(relSSHBlock(keyFileLine, hostKeyLine, `timeout = "-5s"`)),
			want: []string{"Invalid Duration", `ssh.timeout is "-5s": it is negative`}},
		{name: "cks_cluster_drift: private key not PEM", config: relDriftBlock(relSSHBlock(`private_key = "not a key"`, hostKeyLine)),
			want: []string{"Invalid SSH Private Key", "ssh.private_key:", "not a PEM private key"}},
		{name: "cks_cluster_drift: host key not a public key", config: relDriftBlock(relSSHBlock(keyLine, `host_key = "ssh-ed25519 !!!"`)),
			want: []string{"Invalid SSH Host Key", "ssh.host_key must be", "authorized_keys line"}},
		{name: "cks_cluster_drift: ssh timeout not a duration", config: relDriftBlock(relSSHBlock(keyLine, hostKeyLine, `timeout = "soon"`)),
			// Terraform quotes no line inside ssh: the message names the
			// attribute, and TestDriftValidation_pointsAtTheAttribute checks
			// that it is against ssh.timeout.
			want: []string{"Invalid Duration", `ssh.timeout is "soon", which is not a duration`}},
		{name: "cks_cluster_drift: zero ssh timeout", config: relDriftBlock(relSSHBlock(keyLine, hostKeyLine, `timeout = "0s"`)),
			want: []string{"Invalid Duration", `ssh.timeout is "0s": it must be longer than zero`}},
		{name: "cks_cluster_drift: empty ssh user (new)", config: relDriftBlock(relSSHBlock(keyLine, hostKeyLine, `user = ""`)),
			want: []string{"Invalid Attribute Value Length", "Attribute ssh.user string length must be at least 1, got: 0"}},
		{name: "cks_cluster_drift: unknown argument", config: relDriftBlock(`  graceperiod = "5m"`),
			want: []string{"Unsupported argument", `graceperiod = "5m"`, `An argument named "graceperiod" is not expected here`}},

		// cks_clusters_drift.
		{name: "cks_clusters_drift: name_regex does not compile", config: relFleetBlock(`  name_regex = "prod-("`),
			want: []string{"Invalid Regular Expression", `name_regex = "prod-("`, "missing closing )"}},
		{name: "cks_clusters_drift: concurrency 0", config: relFleetBlock("  concurrency = 0"),
			want: []string{"Invalid Attribute Value", "concurrency = 0", "Attribute concurrency value must be between 1 and 64, got: 0"}},
		{name: "cks_clusters_drift: concurrency 65 (new)", config: relFleetBlock("  concurrency = 65"),
			want: []string{"Invalid Attribute Value", "concurrency = 65", "Attribute concurrency value must be between 1 and 64, got: 65"}},
		{name: "cks_clusters_drift: account and project", config: relFleetBlock("  account = \"a\"\n  project_id = \"p\""),
			want: []string{"Invalid Attribute Combination", `project_id = "p"`, "Attribute \"account\" cannot be specified when \"project_id\" is specified"}},
		{name: "cks_clusters_drift: empty account (new)", config: relFleetBlock(`  account = ""`),
			want: []string{"Invalid Attribute Value Length", `account = ""`, "Attribute account string length must be at least 1, got: 0"}},
		// No case for a key ssh does not have (host on the fleet): Terraform
		// drops such keys from an object attribute before the provider sees it.
		{name: "cks_clusters_drift: zero ssh timeout", config: relFleetBlock(relSSHBlock(keyLine, hostKeyLine, `timeout = "0s"`)),
			want: []string{"Invalid Duration", `ssh.timeout is "0s": it must be longer than zero`}},
		{name: "cks_clusters_drift: known_hosts with a bad line",
			config: relFleetBlock(relSSHBlock(keyFileLine, fmt.Sprintf("known_hosts = \"[10.0.0.1]:2222 %s\\n10.0.0.2 ssh-ed25519\"", hostKey))),
			want:   []string{"Invalid SSH known_hosts", "ssh.known_hosts must hold", "line 2: an entry needs host patterns, a key type and a key"}},
		{name: "cks_clusters_drift: private key file missing", config: relFleetBlock(relSSHBlock(fmt.Sprintf("private_key_file = %q", missingKeyFile), hostKeyLine)),
			want: []string{"Invalid SSH Private Key File", "ssh.private_key_file must name a readable", "no such file or directory"}},

		// cks_cluster_kubeconfig (ephemeral).
		{name: "cks_cluster_kubeconfig: empty cluster_id (new)", config: "ephemeral \"cks_cluster_kubeconfig\" \"bad\" {\n  cluster_id = \"\"\n}\n",
			want: []string{"Invalid Attribute Value Length", `cluster_id = ""`, "Attribute cluster_id string length must be at least 1, got: 0"}},
		{name: "cks_cluster_kubeconfig: cluster_id missing (new)", config: "ephemeral \"cks_cluster_kubeconfig\" \"bad\" {\n}\n",
			want: []string{"Missing required argument", `The argument "cluster_id" is required, but no definition was found`}},
	}
}

// relRecordingAPI is an API endpoint that answers every request with an
// error and records it.
type relRecordingAPI struct {
	mu       sync.Mutex
	commands []string
}

func (a *relRecordingAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	a.mu.Lock()
	a.commands = append(a.commands, r.Form.Get("command"))
	a.mu.Unlock()
	http.Error(w, "no API call is expected while validating bad input", http.StatusInternalServerError)
}

func (a *relRecordingAPI) calls() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.commands...)
}

// TestBadInput_rejectedAtPlanWithoutAPICall runs `terraform plan` on each
// invalid configuration with the real Terraform CLI. It sets environment
// variables (no CLOUDSTACK_* and no ~/.cmk/config may leak in), so the test
// itself is not parallel; its cases are.
func TestBadInput_rejectedAtPlanWithoutAPICall(t *testing.T) {
	dependsOnTheCLI(t)
	isolateProviderEnv(t)
	// No SSH agent either: ssh without a key falls back to it.
	t.Setenv("SSH_AUTH_SOCK", "")
	cases := relBadInputs(t)
	if len(cases) < 30 {
		t.Fatalf("the bad-input table has %d cases, want at least 30", len(cases))
	}
	covered := map[string]bool{}
	for _, tc := range cases {
		covered[strings.SplitN(tc.name, ":", 2)[0]] = true
	}
	for _, target := range []string{"provider", "cks_cluster", "data cks_cluster", "cks_kubernetes_version", "cks_cluster_drift",
		"cks_clusters_drift", "cks_cluster_kubeconfig"} {
		if !covered[target] {
			t.Errorf("no invalid configuration of %s", target)
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := &relRecordingAPI{}
			srv := httptest.NewServer(api)
			t.Cleanup(srv.Close)
			apiURL := (&url.URL{Scheme: "http", Host: srv.Listener.Addr().String(), Path: "/client/api"}).String()
			provider := tc.provider
			if provider == "" {
				provider = fmt.Sprintf("  api_url = %q\n  api_key = \"k\"\n  secret_key = \"s\"\n", apiURL)
			}
			provider = strings.ReplaceAll(provider, "API_URL", apiURL)
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      "provider \"cks\" {\n" + provider + "\n}\n" + tc.config,
					PlanOnly:    true,
					ExpectError: errorFragments(tc.want...),
				}},
			})
			if calls := api.calls(); len(calls) != 0 {
				t.Errorf("the provider sent %d API request(s) for an invalid configuration: %v", len(calls), calls)
			}
		})
	}
}
