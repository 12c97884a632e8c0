package driftcheck

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
)

// The drift check fails closed: a view that was asked for and could not be
// read leaves the check incomplete, never in sync.

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("listener address %v is not TCP", ln.Addr())
	}
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr.Port
}

func TestCheckWithUnreachableSSHIsIncomplete(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "unreachable", Size: 1})
	req := e.sshRequest(cl.ID)
	req.SSH.Host, req.SSH.Port = "127.0.0.1", closedPort(t)

	res, st := e.mustCheck(req)

	if res.InSync || res.Complete() || len(res.Findings) != 0 || st.Node.Err == nil {
		t.Fatalf("result %+v: SSH unreachable must leave the check incomplete", res)
	}
	if len(res.Incomplete) != 1 || res.Incomplete[0].View != drift.ViewNodes ||
		!strings.Contains(res.Incomplete[0].Reason, "connection refused") {
		t.Fatalf("incomplete %+v", res.Incomplete)
	}
	if !strings.HasPrefix(res.Summary, "incomplete: no finding in the views checked; Kubernetes nodes not checked: ssh 127.0.0.1:") {
		t.Fatalf("summary %q", res.Summary)
	}
}

func TestCheckKubeconfigErrorIsIncomplete(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "kube", Size: 1})
	req := Request{ClusterID: cl.ID, Options: Options{NodeSource: NodeSourceKubeconfig, GracePeriod: drift.DefaultGracePeriod,
		CheckNetworkRules: true}}

	e.Sim.FailNextCalls("getKubernetesClusterConfig", 1, 530, "Injected failure")
	res, _ := e.mustCheck(req)
	if res.InSync || len(res.Incomplete) != 1 || !strings.Contains(res.Incomplete[0].Reason, "getting the kubeconfig") {
		t.Fatalf("getKubernetesClusterConfig error: %+v", res)
	}

	e.Sim.FailNextKubeAPI(503, 100)
	res, _ = e.mustCheck(req)
	e.Sim.FailNextKubeAPI(0, 0)
	if res.InSync || len(res.Incomplete) != 1 || res.Incomplete[0].View != drift.ViewNodes {
		t.Fatalf("Kubernetes API down: %+v", res)
	}

	if res, _ = e.mustCheck(req); !res.InSync || !res.Complete() {
		t.Fatalf("healed: %+v", res)
	}
}

// hiddenNetworks hides every network, as credentials that cannot see the
// cluster's VPC tier would.
type hiddenNetworks struct{ API }

func (hiddenNetworks) ListNetworks(context.Context, cloudstack.ListNetworksParams) ([]cloudstack.Network, error) {
	return nil, nil
}

func TestCheckRulesViewNotBuiltIsIncomplete(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "vpc", Size: 1, NetworkID: e.Info.VPCTierNetworkID})
	c := &Checker{API: hiddenNetworks{e.API}}
	res, _, err := c.Check(context.Background(), e.sshRequest(cl.ID))
	if err != nil {
		t.Fatal(err)
	}
	if res.InSync || len(res.Incomplete) != 1 || res.Incomplete[0].View != drift.ViewNetworkRules ||
		res.Incomplete[0].Reason != "network "+cl.NetworkID+" is not visible to these credentials" {
		t.Fatalf("result %+v", res)
	}
	if want := "incomplete: no finding in the views checked; network rules not checked: network " + cl.NetworkID +
		" is not visible to these credentials"; res.Summary != want {
		t.Fatalf("summary %q, want %q", res.Summary, want)
	}
	// Without check_network_rules, nothing was asked of the rules.
	req := e.sshRequest(cl.ID)
	req.CheckNetworkRules = false
	if res, _, err = c.Check(context.Background(), req); err != nil || !res.InSync || !res.Complete() {
		t.Fatalf("without rules: %+v, %v", res, err)
	}
}

// A wrong host key for one cluster of a fleet makes that cluster
// incomplete (with the typed error), and the fleet not in sync.
func TestCheckManyWrongHostKeyMakesThatClusterIncomplete(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	good := e.NewCluster(cloudstack.CreateClusterParams{Name: "a-good", Size: 1})
	bad := e.NewCluster(cloudstack.CreateClusterParams{Name: "b-rebuilt", Size: 1})
	knownHosts := fmt.Sprintf("[%s]:2222 %s[%s]:2222 %s", good.IPAddress, ssh.MarshalAuthorizedKey(e.Sim.HostKey(good.ID)),
		bad.IPAddress, ssh.MarshalAuthorizedKey(e.Sim.HostKey(good.ID)))
	opts := e.fleetOptions()
	opts.SSH.InsecureIgnoreHostKey, opts.SSH.KnownHosts = false, knownHosts

	fleet, _, err := e.checker().CheckMany(context.Background(), Filter{}, opts, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fleet.InSync || fleet.Checked != 2 || fleet.Incomplete != 1 || fleet.Drifted != 0 {
		t.Fatalf("fleet %+v", fleet)
	}
	if !fleet.Clusters[0].Result.InSync {
		t.Fatalf("%s: %s", fleet.Clusters[0].Name, fleet.Clusters[0].Result.Summary)
	}
	var hostKeyErr *sshlister.HostKeyError
	if r := fleet.Clusters[1]; r.Result.InSync || !errors.As(r.Node.Err, &hostKeyErr) || len(r.Result.Incomplete) != 1 {
		t.Fatalf("%s: %+v (node error %v)", r.Name, r.Result, r.Node.Err)
	}
	if want := "2 clusters: 1 in sync, 1 incomplete (views not checked: 1 nodes)"; fleet.Summary != want {
		t.Fatalf("summary %q, want %q", fleet.Summary, want)
	}
}

func TestCheckWithPrivateKeyFile(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "keyfile", Size: 1})
	keyFile := filepath.Join(t.TempDir(), "id_cks")
	if err := os.WriteFile(keyFile, e.Sim.PrivateKeyPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	req := e.sshRequest(cl.ID)
	req.SSH.PrivateKey, req.SSH.PrivateKeyFile = nil, keyFile
	if res, _ := e.mustCheck(req); !res.InSync || !res.NodesChecked {
		t.Fatalf("result %+v", res)
	}
}

func TestOptionsValidateCredentialsAndKnownHosts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keyPEM, hostKey := testutil.NewKeyPair(t)
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, []byte("secret-ish"), 0o600); err != nil {
		t.Fatal(err)
	}
	withSSH := func(s sshlister.Config) Options {
		if s.HostKey == "" && s.KnownHosts == "" {
			s.HostKey = hostKey
		}
		return Options{NodeSource: NodeSourceSSH, SSH: s}
	}
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"key file", withSSH(sshlister.Config{PrivateKeyFile: keyFile}), ""},
		{"agent", withSSH(sshlister.Config{AgentSocket: "/run/agent.sock"}), ""},
		{"no credential", withSSH(sshlister.Config{}), "ssh needs the private key of the cluster's key pair"},
		{"key and key file", withSSH(sshlister.Config{PrivateKey: keyPEM, PrivateKeyFile: keyFile}), "Set only one of ssh.private_key, ssh.private_key_file"},
		{"key file and agent", withSSH(sshlister.Config{PrivateKeyFile: keyFile, AgentSocket: "/run/agent.sock"}), "Set only one of ssh.private_key, ssh.private_key_file"},
		{"missing key file", withSSH(sshlister.Config{PrivateKeyFile: filepath.Join(dir, "nope")}), "no such file"},
		{"key file not a key", withSSH(sshlister.Config{PrivateKeyFile: garbage}), "is not a PEM-encoded SSH private key"},
		{"known_hosts unparsable", withSSH(sshlister.Config{PrivateKeyFile: keyFile, KnownHosts: "garbage\n"}), "one per line: line 1"},
	} {
		err := tc.opts.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "secret-ish"):
			t.Errorf("%s: the error quotes the key file: %v", tc.name, err)
		}
	}
}
