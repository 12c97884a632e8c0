package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// The kubeconfig example hands the cluster's credentials to the kubernetes
// and helm providers. Its test runs both against the simulator's Kubernetes
// API, which, like CKS's, authenticates the admin with a client certificate.

// kubernetesProviderVersion is the hashicorp/kubernetes release the example
// test runs: the one tools/kubernetes-provider/go.mod pins.
const kubernetesProviderVersion = "1.13.4"

// kubernetesProvider returns terraform-provider-kubernetes built from
// tools/kubernetes-provider. The build (about three minutes of CPU the first
// time) is kept in ~/.cache/terraform-provider-cks with a copy of the go.mod
// and go.sum it came from, and made again only when they change, as the
// GNUmakefile's tofu target keeps OpenTofu.
func kubernetesProvider(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "..", "tools", "kubernetes-provider")
	var pinned []byte
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		pinned = append(pinned, data...)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "terraform-provider-cks", "kubernetes-provider-"+kubernetesProviderVersion)
	binary := filepath.Join(dir, "terraform-provider-kubernetes")
	if built, err := os.ReadFile(filepath.Join(dir, "built-from")); err == nil && bytes.Equal(built, pinned) {
		if _, err := os.Stat(binary); err == nil {
			return binary
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("building hashicorp/kubernetes %s into %s (minutes the first time)", kubernetesProviderVersion, dir)
	tmp := binary + fmt.Sprintf(".%d", os.Getpid())
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", tmp, "github.com/hashicorp/terraform-provider-kubernetes")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the kubernetes provider: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, binary); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "built-from"), pinned, 0o644); err != nil {
		t.Fatal(err)
	}
	return binary
}

// reattached serves provider servers from this test process and returns
// the TF_REATTACH_PROVIDERS setting that makes the CLI use them instead of
// installing those providers: how terraform-plugin-testing serves the
// provider under test, for a CLI the test runs itself.
func reattached(t *testing.T, servers map[string]func() tfprotov6.ProviderServer) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	info := map[string]any{}
	var closed []chan struct{}
	for addr, server := range servers {
		config := make(chan *plugin.ReattachConfig, 1)
		closeCh := make(chan struct{})
		closed = append(closed, closeCh)
		go func() {
			err := tf6server.Serve(addr, server, tf6server.WithDebug(ctx, config, closeCh),
				tf6server.WithGoPluginLogger(hclog.New(&hclog.LoggerOptions{Output: io.Discard})),
				tf6server.WithoutLogStderrOverride(), tf6server.WithLoggingSink(t))
			if err != nil {
				t.Errorf("serving %s: %v", addr, err)
				close(config)
			}
		}()
		rc, ok := <-config
		if !ok {
			cancel()
			t.FailNow()
		}
		info[addr] = map[string]any{
			"Protocol": string(rc.Protocol), "ProtocolVersion": rc.ProtocolVersion, "Pid": rc.Pid, "Test": true,
			"Addr": map[string]string{"Network": rc.Addr.Network(), "String": rc.Addr.String()},
		}
	}
	t.Cleanup(func() {
		cancel()
		for _, c := range closed {
			<-c
		}
	})
	data, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	return "TF_REATTACH_PROVIDERS=" + string(data)
}

// helmStandInServers serves the helm stand-in under both CLIs' addresses.
func helmStandInServers() map[string]func() tfprotov6.ProviderServer {
	out := map[string]func() tfprotov6.ProviderServer{}
	for _, host := range mirrorHosts {
		out[host+"/hashicorp/helm"] = providerserver.NewProtocol6(&helmStandIn{})
	}
	return out
}
