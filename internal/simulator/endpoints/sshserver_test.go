package endpoints

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
	"golang.org/x/crypto/ssh"
)

const wantNodeTable = "" +
	"NAME                        STATUS     ROLES           AGE   VERSION\n" +
	"test1-control-18fe761907b   Ready      control-plane   2d    v1.33.13\n" +
	"test1-node-18fe7619a3c      Ready      <none>          3h    v1.33.13\n" +
	"test1-node-18fe761a001      NotReady   <none>          45s   v1.33.13\n"

func TestSSHControlNodeRunsKubectl(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	client := c.client(t, controlPort)

	tests := []struct {
		command    string
		wantStdout string
	}{
		{"sudo /opt/bin/kubectl get nodes -o name", "node/test1-control-18fe761907b\nnode/test1-node-18fe7619a3c\nnode/test1-node-18fe761a001\n"},
		{"sudo /opt/bin/kubectl get nodes", wantNodeTable},
		{"sudo /opt/bin/kubectl get nodes --no-headers", wantNodeTable[strings.Index(wantNodeTable, "\n")+1:]},
		{"sudo /opt/bin/kubectl get node test1-node-18fe7619a3c -o=name", "node/test1-node-18fe7619a3c\n"},
		{"sudo -n -u root kubectl get no/test1-node-18fe7619a3c -oname", "node/test1-node-18fe7619a3c\n"},
		{"sudo /opt/bin/kubectl get nodes | grep -w 'Ready' | wc -l", "2\n"},
		{"sudo /opt/bin/kubectl get nodes | grep -w NotReady", "test1-node-18fe761a001      NotReady   <none>          45s   v1.33.13\n"},
	}
	for _, tt := range tests {
		res := run(t, client, tt.command)
		if res.err != nil || res.status != 0 {
			t.Fatalf("%q: err %v, status %d, stderr %q", tt.command, res.err, res.status, res.stderr)
		}
		if res.stdout != tt.wantStdout {
			t.Errorf("%q stdout:\n%s\nwant:\n%s", tt.command, res.stdout, tt.wantStdout)
		}
		if res.stderr != "" {
			t.Errorf("%q stderr = %q, want none", tt.command, res.stderr)
		}
	}
}

func TestSSHControlNodeWideTable(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	res := c.exec(t, controlPort, "sudo /opt/bin/kubectl get nodes -o wide")
	want := "" +
		"NAME                        STATUS     ROLES           AGE   VERSION    INTERNAL-IP   EXTERNAL-IP   OS-IMAGE             KERNEL-VERSION       CONTAINER-RUNTIME\n" +
		"test1-control-18fe761907b   Ready      control-plane   2d    v1.33.13   10.1.1.10     <none>        Ubuntu 22.04.5 LTS   5.15.0-131-generic   containerd://1.7.24\n" +
		"test1-node-18fe7619a3c      Ready      <none>          3h    v1.33.13   10.1.1.11     <none>        Ubuntu 22.04.5 LTS   5.15.0-131-generic   containerd://1.7.24\n" +
		"test1-node-18fe761a001      NotReady   <none>          45s   v1.33.13   10.1.1.12     <none>        Ubuntu 22.04.5 LTS   5.15.0-131-generic   containerd://1.7.24\n"
	if res.status != 0 || res.stdout != want {
		t.Fatalf("status %d, stdout:\n%s\nwant:\n%s", res.status, res.stdout, want)
	}
}

func TestSSHControlNodeErrors(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	client := c.client(t, controlPort)

	tests := []struct {
		command    string
		wantStatus int
		wantStderr string
	}{
		{"uname -a", 127, "bash: uname: command not found\n"},
		{"sudo reboot", 127, "bash: reboot: command not found\n"},
		{"sudo /opt/bin/kubectl get node nope", 1, "Error from server (NotFound): nodes \"nope\" not found\n"},
		{"sudo /opt/bin/kubectl get pods", 1, "error: the server doesn't have a resource type \"pods\"\n"},
		{"sudo /opt/bin/kubectl get nodes --bogus", 1, "error: unknown flag: --bogus\nSee 'kubectl get --help' for usage.\n"},
		{"sudo /opt/bin/kubectl get nodes 'unterminated", 2, "bash: unexpected EOF while looking for matching quote\n"},
	}
	for _, tt := range tests {
		res := run(t, client, tt.command)
		if res.err != nil {
			t.Fatalf("%q: %v", tt.command, res.err)
		}
		if res.status != tt.wantStatus || res.stderr != tt.wantStderr || res.stdout != "" {
			t.Errorf("%q: status %d stderr %q stdout %q; want status %d stderr %q", tt.command, res.status, res.stderr, res.stdout, tt.wantStatus, tt.wantStderr)
		}
	}
}

func TestSSHWorkerNodeHasNoKubeconfig(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	client := c.client(t, workerPort)

	res := run(t, client, "sudo /opt/bin/kubectl get nodes -o name")
	if res.status != 1 || res.stdout != "" || res.stderr != refusedLocalhost {
		t.Fatalf("kubectl on worker: status %d stdout %q stderr %q", res.status, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stderr, "The connection to the server localhost:8080 was refused - did you specify the right host or port?") {
		t.Fatalf("stderr %q lacks kubectl's message", res.stderr)
	}
	res = run(t, client, "hostname")
	if res.status != 127 || res.stderr != "bash: hostname: command not found\n" {
		t.Fatalf("unknown command on worker: status %d stderr %q", res.status, res.stderr)
	}
}

func TestSSHRefusesWrongUserOrKey(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)

	if _, err := c.dial(controlPort, "root", c.key); err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
		t.Fatalf("user root: err = %v, want authentication failure", err)
	}
	stranger := testutil.NewSigner(t)
	if _, err := c.dial(controlPort, "cloud", stranger); err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
		t.Fatalf("unknown key: err = %v, want authentication failure", err)
	}
	// Keys are read at each login: once the model trusts the key, it works.
	c.src.addKey(c.id, stranger.PublicKey())
	client, err := c.dial(controlPort, "cloud", stranger)
	if err != nil {
		t.Fatalf("newly authorized key: %v", err)
	}
	_ = client.Close()
	// The server counts a login just after the client sees it succeed.
	eventually(t, "login counted", func() bool { return c.m.SSHConnections() == 1 })
	if got := c.m.SSHConnections(); got != 1 {
		t.Fatalf("SSHConnections = %d, want 1 (failed logins do not count)", got)
	}
}

func TestSSHHostKeyIsStablePerCluster(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	hostKey := c.m.HostKey(c.id)
	if hostKey == nil || hostKey.Type() != ssh.KeyAlgoED25519 {
		t.Fatalf("HostKey = %v, want an ed25519 key", hostKey)
	}

	// Both nodes present the same key, and it survives reopening a forward.
	var seen []ssh.PublicKey
	dialRecording := func(port int) {
		t.Helper()
		client, err := ssh.Dial("tcp", c.addr(port), &ssh.ClientConfig{
			User: "cloud", Auth: []ssh.AuthMethod{ssh.PublicKeys(c.key)},
			HostKeyCallback: func(_ string, _ net.Addr, key ssh.PublicKey) error {
				seen = append(seen, key)
				return nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		_ = client.Close()
	}
	dialRecording(controlPort)
	dialRecording(workerPort)
	c.m.CloseForward(c.ip, workerPort)
	if err := c.m.OpenForward(c.ip, workerPort, Target{ClusterID: c.id, VMName: "w"}); err != nil {
		t.Fatal(err)
	}
	dialRecording(workerPort)
	for i, key := range seen {
		if string(key.Marshal()) != string(hostKey.Marshal()) {
			t.Fatalf("connection %d presented %s, want %s", i, ssh.FingerprintSHA256(key), ssh.FingerprintSHA256(hostKey))
		}
	}
	if again := c.m.AddCluster(c.id, c.ip); again != nil {
		t.Fatalf("AddCluster again: %v", again)
	}
	if string(c.m.HostKey(c.id).Marshal()) != string(hostKey.Marshal()) {
		t.Fatal("AddCluster again changed the host key")
	}

	// Another cluster's key does not verify.
	other := addTestCluster(t, c.m, c.src, c.id+"-other")
	if string(other.m.HostKey(other.id).Marshal()) == string(hostKey.Marshal()) {
		t.Fatal("two clusters share a host key")
	}
	_, err := ssh.Dial("tcp", other.addr(controlPort), &ssh.ClientConfig{
		User: "cloud", Auth: []ssh.AuthMethod{ssh.PublicKeys(other.key)}, HostKeyCallback: ssh.FixedHostKey(hostKey),
	})
	if err == nil || !strings.Contains(err.Error(), "host key mismatch") {
		t.Fatalf("dial with the wrong pinned key: err = %v, want host key mismatch", err)
	}
	if c.m.HostKey("unknown") != nil {
		t.Fatal("HostKey of an unknown cluster is not nil")
	}
}

func TestSSHShellAndPtyAreRefused(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	client := c.client(t, controlPort)

	s, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm", 24, 80, ssh.TerminalModes{}); err == nil {
		t.Error("pty request accepted")
	}
	if err := s.Shell(); err == nil {
		t.Error("shell request accepted")
	}
	_ = s.Close()

	// The connection still serves commands afterwards.
	if res := run(t, client, "sudo /opt/bin/kubectl get nodes -o name"); res.status != 0 || res.err != nil {
		t.Fatalf("exec after refused shell: %+v", res)
	}
}

func TestCloseForwardRefusesAndClosesSessions(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	idle := c.m.live.Load() // API server and two accept loops
	client := c.client(t, controlPort)

	// A command held by a long latency is in flight when the rule goes away.
	c.m.SetSSHLatency(time.Hour)
	inFlight := make(chan execResult, 1)
	go func() {
		s, err := client.NewSession()
		if err != nil {
			inFlight <- execResult{err: err}
			return
		}
		out, err := s.Output("sudo /opt/bin/kubectl get nodes -o name")
		inFlight <- execResult{stdout: string(out), err: err}
	}()
	eventually(t, "session opened", func() bool { return c.m.SSHSessions() == 1 })

	c.m.CloseForward(c.ip, controlPort)

	res := <-inFlight
	if res.err == nil || res.stdout != "" {
		t.Fatalf("in-flight command: stdout %q err %v, want no output and an error", res.stdout, res.err)
	}
	if err := client.Wait(); err == nil {
		t.Log("connection closed cleanly")
	}
	expectNoServer(t, c.addr(controlPort), "CloseForward")
	// Every goroutine of the closed forward returns: nothing leaks.
	eventually(t, "forward goroutines exit", func() bool { return c.m.live.Load() == idle-1 })
	// The other forward of the cluster is untouched.
	c.m.SetSSHLatency(0)
	if res := c.exec(t, workerPort, "hostname"); res.status != 127 {
		t.Fatalf("worker forward after closing the control one: %+v", res)
	}
	c.m.CloseForward(c.ip, controlPort) // closing twice is harmless
}

func TestSSHLatencyDelaysOutput(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	client := c.client(t, controlPort)
	const latency = 150 * time.Millisecond
	c.m.SetSSHLatency(latency)

	start := time.Now()
	res := run(t, client, "sudo /opt/bin/kubectl get nodes -o name")
	if elapsed := time.Since(start); elapsed < latency {
		t.Fatalf("command answered after %v, before the %v latency", elapsed, latency)
	}
	if res.status != 0 || !strings.HasPrefix(res.stdout, "node/") {
		t.Fatalf("delayed command: %+v", res)
	}
}

func TestDropNextSSHCommands(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	full := c.exec(t, controlPort, "sudo /opt/bin/kubectl get nodes -o name").stdout

	c.m.DropNextSSHCommands(2)
	for i := range 2 {
		client := c.client(t, controlPort)
		res := run(t, client, "sudo /opt/bin/kubectl get nodes -o name")
		var missing *ssh.ExitMissingError
		if res.err == nil || (!errors.As(res.err, &missing) && !strings.Contains(res.err.Error(), "EOF")) {
			t.Fatalf("dropped command %d: err = %v, want a missing exit status", i, res.err)
		}
		if len(res.stdout) >= len(full) || !strings.HasPrefix(full, res.stdout) {
			t.Fatalf("dropped command %d printed %q, want a strict prefix of %q", i, res.stdout, full)
		}
		if err := client.Wait(); err == nil {
			t.Fatalf("dropped command %d: connection not closed", i)
		}
	}
	if res := c.exec(t, controlPort, "sudo /opt/bin/kubectl get nodes -o name"); res.err != nil || res.stdout != full {
		t.Fatalf("third command after two drops: %+v", res)
	}
}

func TestSSHSessionsCountsSessions(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	client := c.client(t, controlPort)
	for range 3 {
		run(t, client, "sudo /opt/bin/kubectl get nodes")
	}
	run(t, c.client(t, workerPort), "hostname")
	if got := c.m.SSHSessions(); got != 4 {
		t.Fatalf("SSHSessions = %d, want 4", got)
	}
	if got := c.m.SSHConnections(); got != 2 {
		t.Fatalf("SSHConnections = %d, want 2", got)
	}
}

func TestOpenForwardRetargets(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	if err := c.m.OpenForward(c.ip, workerPort, Target{ClusterID: c.id, VMName: "test1-control-18fe761907b", Control: true}); err != nil {
		t.Fatal(err)
	}
	if res := c.exec(t, workerPort, "sudo /opt/bin/kubectl get nodes -o name"); res.status != 0 {
		t.Fatalf("retargeted forward still reaches a worker: %+v", res)
	}
	// Retargeting to another cluster's VM switches to that cluster's host key.
	other := addTestCluster(t, c.m, c.src, "other")
	if err := c.m.OpenForward(c.ip, workerPort, Target{ClusterID: other.id, Control: true}); err != nil {
		t.Fatal(err)
	}
	client, err := ssh.Dial("tcp", c.addr(workerPort), &ssh.ClientConfig{
		User: "cloud", Auth: []ssh.AuthMethod{ssh.PublicKeys(other.key)}, HostKeyCallback: ssh.FixedHostKey(c.m.HostKey(other.id)),
	})
	if err != nil {
		t.Fatalf("forward retargeted to another cluster: %v", err)
	}
	_ = client.Close()
	if err := c.m.OpenForward(c.ip, 0, Target{ClusterID: c.id}); err == nil {
		t.Fatal("port 0 accepted")
	}
}
