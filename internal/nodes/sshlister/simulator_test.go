package sshlister_test

import (
	"reflect"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/endpoints"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
)

// The lister reads the simulator's `kubectl get nodes -o json`: a Ready
// control node, a Ready worker and a worker whose kubelet stopped, with the
// names, readiness, roles and versions kubectl's table would show.
func TestListNodesAgainstSimulatorEndpoints(t *testing.T) {
	t.Parallel()
	keyPEM, clientSigner := testutil.NewKey(t)
	created := time.Now().Add(-time.Hour)
	src := simSource{
		nodes: map[string][]endpoints.Node{
			"cluster-a": {
				{Name: "a-node-19a2b3c4d6f", Ready: false, Version: "v1.33.12", Created: created, InternalIP: "10.1.1.12"},
				{Name: "a-control-19a2b3c4d5e", Ready: true, Control: true, Version: "v1.33.13", Created: created, InternalIP: "10.1.1.10"},
				{Name: "a-node-19a2b3c4d60.cks.example.org", Ready: true, Version: "v1.33.13", Created: created, InternalIP: "10.1.1.11"},
			},
		},
		keys: map[string][]ssh.PublicKey{"cluster-a": {clientSigner.PublicKey()}},
	}
	m := endpoints.NewManager(src)
	t.Cleanup(m.Close)
	ip := openOnFreeLoopback(t, m, "cluster-a")

	l := mustNew(t, sshlister.Config{Host: ip, Port: 2222, PrivateKey: keyPEM,
		HostKey: string(ssh.MarshalAuthorizedKey(m.HostKey("cluster-a")))})
	got, err := l.ListNodes(t.Context())
	if err != nil {
		t.Fatalf("ListNodes: %v", err)
	}
	want := []nodes.Node{
		{Name: "a-control-19a2b3c4d5e", Ready: true, Roles: "control-plane", Version: "v1.33.13"},
		{Name: "a-node-19a2b3c4d60.cks.example.org", Ready: true, Roles: "<none>", Version: "v1.33.13"},
		{Name: "a-node-19a2b3c4d6f", Ready: false, Roles: "<none>", Version: "v1.33.12"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ListNodes =\n%#v\nwant\n%#v", got, want)
	}
	if n := m.SSHSessions(); n != 1 {
		t.Fatalf("%d SSH sessions, want 1", n)
	}
}
