package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/echoprovider"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// kubectlPath is the real kubectl the test runs against the simulator, found
// on PATH; errNoKubectl makes the test skip where there is none.
var kubectlPath, errNoKubectl = exec.LookPath("kubectl")

// TestAccClusterKubeconfigEphemeral opens cks_cluster_kubeconfig for a new
// cluster and hands it to the echo provider (the test-only way to look at
// ephemeral values). The kubeconfig works with the real kubectl, and no
// other object in the state contains it.
func TestAccClusterKubeconfigEphemeral(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	if errNoKubectl != nil {
		t.Skipf("this test runs the real kubectl with the kubeconfig, and none is on PATH: %v", errNoKubectl)
	}
	env := newSimEnv(t)
	config := env.cluster("kubeconfig").String() + `
ephemeral "cks_cluster_kubeconfig" "this" {
  cluster_id = cks_cluster.test.id
}

provider "echo" {
  data = ephemeral.cks_cluster_kubeconfig.this
}

resource "echo" "kubeconfig" {}
`
	accTest(t, resource.TestCase{
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)},
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"cks":  providerserver.NewProtocol6WithError(New("test")()),
			"echo": echoprovider.NewProviderServer(),
		},
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				kubeconfigWorks{t: t, dir: t.TempDir()},
			},
		}},
	})
}

// kubeconfigWorks reads the kubeconfig the echo resource received, runs
// `kubectl get nodes -o name` with it, and checks that nothing else in the
// state holds the kubeconfig or its client key.
type kubeconfigWorks struct {
	t   *testing.T
	dir string
}

func (c kubeconfigWorks) CheckState(ctx context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = errors.New("the state is empty")
		return
	}
	var echoed *tfjson.StateResource
	var others []*tfjson.StateResource
	for _, r := range req.State.Values.RootModule.Resources {
		switch {
		case r.Address == "echo.kubeconfig":
			echoed = r
		case strings.Contains(r.Type, "kubeconfig"):
			resp.Error = fmt.Errorf("the state holds %s: an ephemeral resource must never be stored", r.Address)
			return
		default:
			others = append(others, r)
		}
	}
	if echoed == nil {
		resp.Error = errors.New("echo.kubeconfig is not in state")
		return
	}
	data, ok := echoed.AttributeValues["data"].(map[string]any)
	if !ok {
		resp.Error = fmt.Errorf("echo.kubeconfig data is %T, want an object", echoed.AttributeValues["data"])
		return
	}
	kubeconfig, _ := data["kubeconfig"].(string)
	// kubeadm's admin.conf authenticates with a client certificate.
	cert, _ := data["client_certificate"].(string)
	key, _ := data["client_key"].(string)
	host, _ := data["host"].(string)
	if kubeconfig == "" || !strings.Contains(cert, "BEGIN CERTIFICATE") || !strings.Contains(key, "PRIVATE KEY") ||
		data["token"] != nil || !strings.HasPrefix(host, "https://") {
		resp.Error = fmt.Errorf("the ephemeral resource gave kubeconfig %d bytes, client certificate %d bytes, client key %d bytes, "+
			"token %v, host %q", len(kubeconfig), len(cert), len(key), data["token"], host)
		return
	}
	keyLine := strings.Split(strings.TrimSpace(key), "\n")[1]
	for _, r := range others {
		raw, err := json.Marshal(r.AttributeValues)
		if err != nil {
			resp.Error = err
			return
		}
		if strings.Contains(string(raw), keyLine) || strings.Contains(string(raw), "client-key-data") {
			resp.Error = fmt.Errorf("%s holds the kubeconfig or its client key", r.Address)
			return
		}
	}
	resp.Error = c.kubectlGetNodes(ctx, kubeconfig)
}

// kubectlGetNodes runs the real kubectl with the kubeconfig and expects the
// cluster's control node and worker (etcd VMs are not Kubernetes nodes).
func (c kubeconfigWorks) kubectlGetNodes(ctx context.Context, kubeconfig string) error {
	file := filepath.Join(c.dir, "kubeconfig")
	if err := os.WriteFile(file, []byte(kubeconfig), 0o600); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, kubectlPath, "--kubeconfig", file, "--request-timeout", "20s", "get", "nodes", "-o", "name")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("kubectl get nodes: %v: %s", err, out)
	}
	lines := strings.Fields(string(out))
	slices.Sort(lines)
	if len(lines) != 2 || !strings.Contains(lines[0], "-control-") || !strings.Contains(lines[1], "-node-") {
		return fmt.Errorf("kubectl get nodes -o name printed %q, want the control node and the worker", out)
	}
	return nil
}
