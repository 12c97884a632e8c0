package driftcheck

import (
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
)

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	key, hostKey := testutil.NewKeyPair(t)
	good := sshlister.Config{PrivateKey: key, HostKey: hostKey}

	cases := []struct {
		name string
		opts Options
		want string // "" for valid
	}{
		{"ssh with a pinned key", Options{NodeSource: NodeSourceSSH, SSH: good}, ""},
		{"none needs nothing", Options{NodeSource: NodeSourceNone}, ""},
		{"kubeconfig needs nothing", Options{NodeSource: NodeSourceKubeconfig}, ""},
		{"unknown source", Options{NodeSource: "scp"}, `node source "scp"`},
		{"no private key", Options{NodeSource: NodeSourceSSH, SSH: sshlister.Config{HostKey: hostKey}}, "needs the private key"},
		{"bad private key", Options{NodeSource: NodeSourceSSH, SSH: sshlister.Config{PrivateKey: []byte("secret-ish"), HostKey: hostKey}}, "not a PEM private key"},
		{"no host key", Options{NodeSource: NodeSourceSSH, SSH: sshlister.Config{PrivateKey: key}}, "needs a host key"},
		{"both host key sources", Options{NodeSource: NodeSourceSSH, SSH: sshlister.Config{PrivateKey: key, HostKey: hostKey, KnownHosts: "h " + hostKey}}, "only one"},
		{"insecure and pinned", Options{NodeSource: NodeSourceSSH, SSH: sshlister.Config{PrivateKey: key, HostKey: hostKey, InsecureIgnoreHostKey: true}}, "Conflicting Host Key Settings"},
		{"bad port", Options{NodeSource: NodeSourceSSH, SSH: sshlister.Config{PrivateKey: key, InsecureIgnoreHostKey: true, Port: 70000}}, "out of range"},
		{"negative grace", Options{NodeSource: NodeSourceNone, GracePeriod: -1}, "grace period"},
		{"negative timeout", Options{NodeSource: NodeSourceNone, NodeTimeout: -1}, "timeout"},
	}
	for _, tc := range cases {
		err := tc.opts.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "secret-ish"):
			t.Errorf("%s: the error quotes the private key: %v", tc.name, err)
		}
	}
}
