package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// TestCommandContract builds cksim, runs it on port 0 and checks the JSON
// line, the key file, the API, the admin subcommand and shutdown on SIGTERM.
func TestCommandContract(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "cksim")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	keyFile := filepath.Join(dir, "cks-key.pem")
	cmd := exec.Command(bin, "-listen", "127.0.0.1:0", "-profile", "fixed", "-job-duration", "5ms", "-job-queue-delay", "5ms", "-key-out", keyFile,
		"-scanner-interval", "10s", "-list-order", "reversed")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})

	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(30 * time.Second):
		t.Fatalf("no JSON line within 30 s; stderr: %s", stderr.String())
	}
	var info simulator.Info
	if err := json.Unmarshal([]byte(line), &info); err != nil {
		t.Fatalf("first line %q is not the Info JSON: %v", line, err)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(line), &raw); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"api_url", "api_key", "secret_key", "admin_url", "zone_id", "service_offering_id",
		"kubernetes_versions", "keypair", "private_key_file"} {
		if v, ok := raw[key]; !ok || v == "" {
			t.Errorf("JSON line lacks %q", key)
		}
	}
	// The names the look-up data sources take, beside the ids.
	for key, want := range map[string]string{"zone_name": "sim-zone-1", "service_offering_name": "cks-medium",
		"large_service_offering_name": "cks-large", "isolated_network_name": "sim-isolated-network",
		"shared_network_name": "sim-shared-network", "project_name": "cks-project"} {
		if raw[key] != want {
			t.Errorf("JSON line has %s %v, want %q", key, raw[key], want)
		}
	}
	if info.KubernetesVersionNames["1.33.13"] != "v1.33.13" || len(info.KubernetesVersionNames) != len(info.KubernetesVersions) {
		t.Errorf("JSON line names the versions %v, ids %v", info.KubernetesVersionNames, info.KubernetesVersions)
	}
	if len(info.KubernetesVersions) < 3 || info.Keypair != "cks-key" || info.PrivateKeyFile != keyFile || info.CloudStackVersion != "4.22.2.0" {
		t.Fatalf("info: %+v", info)
	}
	st, err := os.Stat(keyFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", st, err)
	}
	pem, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ssh.ParsePrivateKey(pem); err != nil {
		t.Fatalf("key file does not hold a private key: %v", err)
	}

	cs := cloudstack.NewClient(info.APIURL, info.APIKey, info.SecretKey, false)
	caps, err := cs.Configuration.ListCapabilities(cs.Configuration.NewListCapabilitiesParams())
	if err != nil || caps.Capabilities.Cloudstackversion != "4.22.2.0" {
		t.Fatalf("listCapabilities against cksim: %+v %v", caps, err)
	}

	out, err := exec.Command(bin, "admin", "-url", info.AdminURL, "calls").Output()
	if err != nil || !strings.Contains(string(out), `"listCapabilities":1`) {
		t.Fatalf("cksim admin calls: %v %s", err, out)
	}
	out, err = exec.Command(bin, "admin", "-url", info.AdminURL, "scanner-interval", "interval=2s").Output()
	if err != nil || !strings.Contains(string(out), `"interval":"2s"`) {
		t.Fatalf("cksim admin scanner-interval: %v %s", err, out)
	}
	out, err = exec.Command(bin, "admin", "-url", info.AdminURL, "scanner").Output()
	if err != nil || !strings.Contains(string(out), `"interval":"2s"`) {
		t.Fatalf("cksim admin scanner: %v %s", err, out)
	}
	if out, err := exec.Command(bin, "admin", "-url", info.AdminURL, "scanner-run").Output(); err != nil {
		t.Fatalf("cksim admin scanner-run: %v %s", err, out)
	}
	out, err = exec.Command(bin, "admin", "-url", info.AdminURL, "fault-job", "op=scale-down", "step=bogus").Output()
	if err == nil || !strings.Contains(string(out), "unknown step") {
		t.Fatalf("cksim admin with a bad step must fail: %v %s", err, out)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("cksim exit after SIGTERM: %v; stderr: %s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cksim did not exit after SIGTERM")
	}
}

// TestHelpNamesWhatItSeeds: cksim -h names the zone, offerings, versions
// and networks the look-up data sources find by name, and exits 0.
func TestHelpNamesWhatItSeeds(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := run([]string{"-h"}, &out, &errOut); code != 0 {
		t.Fatalf("cksim -h: exit %d\n%s", code, errOut.String())
	}
	for _, want := range []string{"zone sim-zone-1", "service offerings cks-medium (the default), cks-large, cks-small",
		"v1.33.13", "(v1.35.0 disabled)", "sim-isolated-network (isolated)", "sim-shared-network (shared)", "-listen", "zone_name"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("cksim -h lacks %q:\n%s", want, errOut.String())
		}
	}
}

func TestAdminHelpAndErrors(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := run([]string{"admin", "help"}, &out, &errOut); code != 0 {
		t.Fatalf("admin help: exit %d %s", code, errOut.String())
	}
	for _, want := range []string{"map-delete", "kubelet-stop", "fault-job", "scale-down", "vm-removed", "dump", "scanner-run", "scanner-interval"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("admin help lacks %q", want)
		}
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"admin", "-url", "http://127.0.0.1:1/admin", "no-such-op"}, &out, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), "unknown op") {
		t.Fatalf("unknown op: exit %d %s", code, errOut.String())
	}
	if code := run([]string{"-profile", "nonsense", "-listen", "127.0.0.1:0"}, &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "unknown profile") {
		t.Fatalf("bad profile: exit %d %s", code, errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"-scanner-interval", "0s", "-listen", "127.0.0.1:0"}, &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "-scanner-interval must be positive") {
		t.Fatalf("bad scanner interval: exit %d %s", code, errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"-list-order", "sorted", "-listen", "127.0.0.1:0"}, &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "unknown list order") {
		t.Fatalf("bad list order: exit %d %s", code, errOut.String())
	}
}
