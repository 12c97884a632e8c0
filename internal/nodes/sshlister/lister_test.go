package sshlister_test

import (
	"context"
	"errors"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
)

// nodeJSON is what `kubectl get nodes -o json` prints for a control node and
// a worker whose kubelet stopped reporting (its Ready condition is Unknown).
const nodeJSON = `{
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "creationTimestamp": "2026-03-02T09:14:03Z",
                "labels": {
                    "kubernetes.io/hostname": "cks-1-control-19a2b3c4d5e",
                    "node-role.kubernetes.io/control-plane": ""
                },
                "name": "cks-1-control-19a2b3c4d5e"
            },
            "status": {
                "conditions": [
                    {
                        "lastTransitionTime": "2026-03-02T09:15:20Z",
                        "reason": "KubeletReady",
                        "status": "True",
                        "type": "Ready"
                    }
                ],
                "nodeInfo": {
                    "kubeletVersion": "v1.33.13"
                }
            }
        },
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "creationTimestamp": "2026-03-14T15:02:00Z",
                "labels": {
                    "kubernetes.io/hostname": "cks-1-node-19a2b3c4d6f"
                },
                "name": "cks-1-node-19a2b3c4d6f"
            },
            "status": {
                "conditions": [
                    {
                        "lastTransitionTime": "2026-03-14T15:04:55Z",
                        "reason": "NodeStatusUnknown",
                        "status": "Unknown",
                        "type": "Ready"
                    }
                ],
                "nodeInfo": {
                    "kubeletVersion": "v1.33.12"
                }
            }
        }
    ],
    "kind": "List",
    "metadata": {
        "resourceVersion": ""
    }
}
`

var nodeJSONNodes = []nodes.Node{
	{Name: "cks-1-control-19a2b3c4d5e", Ready: true, Roles: "control-plane", Version: "v1.33.13"},
	{Name: "cks-1-node-19a2b3c4d6f", Ready: false, Roles: "<none>", Version: "v1.33.12"},
}

const kubectlRefused = "The connection to the server localhost:8080 was refused - did you specify the right host or port?"

func mustNew(t *testing.T, cfg sshlister.Config) *sshlister.Lister {
	t.Helper()
	l, err := sshlister.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return l
}

// assertOneSessionEach checks that every ListNodes call used exactly one
// connection and one session running the CKS command.
func assertOneSessionEach(t *testing.T, s *testServer, calls int) {
	t.Helper()
	if got := s.conns.Load(); got != int64(calls) {
		t.Errorf("server saw %d connections, want %d", got, calls)
	}
	if got := s.sessions.Load(); got != int64(calls) {
		t.Errorf("server saw %d sessions, want %d", got, calls)
	}
	want := make([]string, calls)
	for i := range want {
		want[i] = sshlister.ListNodesCommand
	}
	if got := s.recordedCommands(); !reflect.DeepEqual(got, want) {
		t.Errorf("server ran %q, want %q", got, want)
	}
}

func TestListNodesHappyPath(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, replyWith(nodeJSON, "", 0))
	l := mustNew(t, s.config())

	for range 2 {
		got, err := l.ListNodes(t.Context())
		if err != nil {
			t.Fatalf("ListNodes: %v", err)
		}
		if !reflect.DeepEqual(got, nodeJSONNodes) {
			t.Fatalf("ListNodes = %#v, want %#v", got, nodeJSONNodes)
		}
	}
	assertOneSessionEach(t, s, 2)
	if l.Address() != s.address() {
		t.Errorf("Address = %q, want %q", l.Address(), s.address())
	}
}

func TestListNodesWrongHostKeyRefused(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, replyWith(nodeJSON, "", 0))
	other := testutil.NewSigner(t).PublicKey()
	cfg := s.config()
	cfg.HostKey = string(ssh.MarshalAuthorizedKey(other))

	_, err := mustNew(t, cfg).ListNodes(t.Context())
	want := "host key mismatch for " + s.address() + ": got " + ssh.FingerprintSHA256(s.hostSigner.PublicKey()) +
		", expected " + ssh.FingerprintSHA256(other)
	if err == nil || err.Error() != want {
		t.Fatalf("ListNodes error = %v, want %q", err, want)
	}
	var hostKeyErr *sshlister.HostKeyError
	if !errors.As(err, &hostKeyErr) {
		t.Fatalf("error %T is not a *HostKeyError", err)
	}
	if n := s.sessions.Load(); n != 0 {
		t.Fatalf("a session was opened (%d) despite the host key mismatch", n)
	}
}

func TestListNodesKnownHosts(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, replyWith(nodeJSON, "", 0))
	hostKey := s.hostSigner.PublicKey()
	other := testutil.NewSigner(t).PublicKey()
	bracketed := knownhosts.Normalize(s.address())
	if !strings.HasPrefix(bracketed, "[") {
		t.Fatalf("Normalize(%q) = %q, want the [host]:port form", s.address(), bracketed)
	}

	accepted := map[string]string{
		"[host]:port entry": knownhosts.Line([]string{s.address()}, hostKey),
		"hashed entry":      knownhosts.Line([]string{knownhosts.HashHostname(bracketed)}, hostKey),
		"among other hosts and comments": "# cluster hosts\n" +
			knownhosts.Line([]string{"10.0.0.1"}, other) + "\n\n" +
			knownhosts.Line([]string{"cks.example.org", s.address()}, hostKey) + "\n",
	}
	for name, content := range accepted {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, cfg := range knownHostsConfigs(t, s.config(), content) {
				got, err := mustNew(t, cfg).ListNodes(t.Context())
				if err != nil {
					t.Fatalf("ListNodes: %v", err)
				}
				if !reflect.DeepEqual(got, nodeJSONNodes) {
					t.Fatalf("ListNodes = %#v", got)
				}
			}
		})
	}

	refused := map[string]struct {
		content string
		want    string
	}{
		"entry with another key": {
			content: knownhosts.Line([]string{s.address()}, other),
			want: "host key mismatch for " + s.address() + ": got " + ssh.FingerprintSHA256(hostKey) +
				", expected " + ssh.FingerprintSHA256(other),
		},
		"entry for port 22 only": {
			content: knownhosts.Line([]string{s.host}, hostKey),
			want:    "unknown host key for " + s.address() + ": got " + ssh.FingerprintSHA256(hostKey) + ", known_hosts has no entry for this host",
		},
		"revoked key": {
			content: "@revoked * " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(hostKey))) + "\n" +
				knownhosts.Line([]string{s.address()}, hostKey),
			want: "host key " + ssh.FingerprintSHA256(hostKey) + " for " + s.address() + " is marked @revoked in known_hosts",
		},
	}
	for name, tc := range refused {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, cfg := range knownHostsConfigs(t, s.config(), tc.content) {
				_, err := mustNew(t, cfg).ListNodes(t.Context())
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("ListNodes error = %v, want it to contain %q", err, tc.want)
				}
			}
		})
	}
}

// knownHostsConfigs verify the host key with known_hosts content, given as
// text and read once beforehand (ParsedKnownHosts, as a fleet does): both
// must verify alike.
func knownHostsConfigs(t *testing.T, cfg sshlister.Config, content string) []sshlister.Config {
	t.Helper()
	parsed, err := sshlister.ParseKnownHosts(content)
	if err != nil {
		t.Fatal(err)
	}
	text, read := cfg, cfg
	text.HostKey, text.KnownHosts = "", content
	read.HostKey, read.ParsedKnownHosts = "", parsed
	return []sshlister.Config{text, read}
}

func TestListNodesInsecureIgnoreHostKey(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, replyWith(nodeJSON, "", 0))
	cfg := s.config()
	cfg.HostKey, cfg.InsecureIgnoreHostKey = "", true

	got, err := mustNew(t, cfg).ListNodes(t.Context())
	if err != nil {
		t.Fatalf("ListNodes: %v", err)
	}
	if !reflect.DeepEqual(got, nodeJSONNodes) {
		t.Fatalf("ListNodes = %#v", got)
	}
	assertOneSessionEach(t, s, 1)
}

func TestListNodesUnauthorizedKeyOrUser(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, replyWith(nodeJSON, "", 0))
	strangerPEM, _ := testutil.NewKey(t)

	for name, mutate := range map[string]func(*sshlister.Config){
		"key not in authorized_keys": func(c *sshlister.Config) { c.PrivateKey = strangerPEM },
		"legacy user core":           func(c *sshlister.Config) { c.User = "core" },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := s.config()
			mutate(&cfg)
			_, err := mustNew(t, cfg).ListNodes(t.Context())
			if err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
				t.Fatalf("ListNodes error = %v, want an authentication failure", err)
			}
			if strings.Contains(err.Error(), "PRIVATE KEY") {
				t.Fatalf("error mentions the private key: %v", err)
			}
		})
	}
}

func TestListNodesCommandExitsNonZero(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 400) // 800 bytes: the cut lands inside a two-byte rune
	tests := map[string]struct {
		stdout, stderr string
		wantStderr     string
	}{
		"kubectl on a worker": {stderr: "\n" + kubectlRefused + "\n", wantStderr: kubectlRefused},
		"long stderr is cut":  {stderr: long, wantStderr: strings.Repeat("é", 256) + "..."},
		"partial stdout":      {stdout: nodeJSON, stderr: "error: timeout", wantStderr: "error: timeout"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newTestServer(t, replyWith(tc.stdout, tc.stderr, 1))
			got, err := mustNew(t, s.config()).ListNodes(t.Context())
			var cmdErr *sshlister.CommandError
			if !errors.As(err, &cmdErr) {
				t.Fatalf("ListNodes = %#v, %v; want a *CommandError", got, err)
			}
			if cmdErr.ExitStatus != 1 || cmdErr.Stderr != tc.wantStderr || cmdErr.Address != s.address() {
				t.Fatalf("CommandError = %+v, want status 1 and stderr %q", cmdErr, tc.wantStderr)
			}
			wantMsg := `ssh ` + s.address() + `: "sudo /opt/bin/kubectl get nodes -o json" exited with status 1: ` + tc.wantStderr
			if err.Error() != wantMsg {
				t.Fatalf("error = %q, want %q", err, wantMsg)
			}
			if got != nil {
				t.Fatalf("nodes %#v returned with an error", got)
			}
			assertOneSessionEach(t, s, 1)
		})
	}
}

func TestListNodesIgnoresStderrWarnings(t *testing.T) {
	t.Parallel()
	stderr := "Warning: v1 ComponentStatus is deprecated in v1.19+\n" +
		"E1129 10:01:02.123456   4242 memcache.go:265] couldn't get current server API group list\n"
	s := newTestServer(t, replyWith("\r\n"+strings.ReplaceAll(nodeJSON, "\n", "\r\n"), stderr, 0))

	got, err := mustNew(t, s.config()).ListNodes(t.Context())
	if err != nil {
		t.Fatalf("ListNodes: %v", err)
	}
	if !reflect.DeepEqual(got, nodeJSONNodes) {
		t.Fatalf("ListNodes = %#v", got)
	}
	assertOneSessionEach(t, s, 1)
}

func TestListNodesUnexpectedStdout(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		stdout  string
		wantErr string
	}{
		"no JSON": {
			stdout:  "bash: kubectl: command not found\n",
			wantErr: `printed unexpected output: no JSON object; stdout starts with "bash: kubectl: command not found"; stderr: some hint`,
		},
		"an old kubectl that ignored -o json": {
			stdout:  "NAME   STATUS   ROLES    AGE   VERSION\nw-1    Ready    <none>   1h    v1.32.0\n",
			wantErr: `printed unexpected output: no JSON object; stdout starts with "NAME`,
		},
		"exit status 0 and nothing printed": {
			stdout:  "",
			wantErr: "printed unexpected output: nothing on stdout; stderr: some hint",
		},
		"JSON that is not a node list": {
			stdout:  `{"kind":"Status","apiVersion":"v1","status":"Failure"}`,
			wantErr: `printed unexpected output: JSON of kind "Status" (apiVersion "v1"), not a v1 List of nodes`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newTestServer(t, replyWith(tc.stdout, "some hint", 0))
			got, err := mustNew(t, s.config()).ListNodes(t.Context())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("ListNodes = %#v, %v; want an error containing %q", got, err, tc.wantErr)
			}
			if !strings.HasPrefix(err.Error(), "ssh "+s.address()+`: "sudo /opt/bin/kubectl get nodes -o json" printed`) {
				t.Fatalf("error %q does not name the address and command", err)
			}
		})
	}
}

func TestListNodesConnectionDroppedMidOutput(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, func(e exec) (uint32, bool) {
		_, _ = e.channel.Write([]byte(nodeJSON[:len(nodeJSON)-20]))
		_ = e.conn.Close()
		return 0, false
	})
	got, err := mustNew(t, s.config()).ListNodes(t.Context())
	if err == nil || !strings.Contains(err.Error(), "connection closed before") {
		t.Fatalf("ListNodes = %#v, %v; want a dropped-connection error", got, err)
	}
	assertOneSessionEach(t, s, 1)
}

// blockUntilClosed returns a handler that tells the test the command started,
// then blocks until the client side goes away, and reports that on done.
func blockUntilClosed(started, done chan<- struct{}) execHandler {
	return func(e exec) (uint32, bool) {
		close(started)
		_ = e.conn.Wait() // the client half-closes stdin at once, so wait for the connection itself
		close(done)
		return 0, false
	}
}

func TestListNodesContextCancelMidCommand(t *testing.T) {
	t.Parallel()
	started, done := make(chan struct{}), make(chan struct{})
	s := newTestServer(t, blockUntilClosed(started, done))
	cfg := s.config()
	cfg.CommandTimeout = time.Hour // only the cancellation can end the call
	l := mustNew(t, cfg)

	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	got, err := l.ListNodes(ctx)
	if !errors.Is(err, context.Canceled) || got != nil {
		t.Fatalf("ListNodes = %#v, %v; want context.Canceled", got, err)
	}
	<-done // the server saw the connection close
	assertOneSessionEach(t, s, 1)
}

func TestListNodesCommandTimeout(t *testing.T) {
	t.Parallel()
	started, done := make(chan struct{}), make(chan struct{})
	s := newTestServer(t, blockUntilClosed(started, done))
	cfg := s.config()
	cfg.CommandTimeout = 50 * time.Millisecond

	_, err := mustNew(t, cfg).ListNodes(t.Context())
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "did not finish within 50ms") {
		t.Fatalf("ListNodes error = %v, want a command timeout", err)
	}
	<-done
}

func TestListNodesHandshakeTimeout(t *testing.T) {
	t.Parallel()
	// A TCP listener that accepts but never speaks SSH.
	l := testutil.ListenLoopback(t)
	var (
		mu       sync.Mutex
		accepted []net.Conn
	)
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range accepted {
			_ = c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted = append(accepted, c)
			mu.Unlock()
		}
	}()
	cfg := validConfig(t)
	cfg.Host, cfg.Port = splitAddr(t, l.Addr().String())
	cfg.HandshakeTimeout = 50 * time.Millisecond

	_, err := mustNew(t, cfg).ListNodes(t.Context())
	if err == nil || !strings.Contains(err.Error(), "handshake did not finish within 50ms") {
		t.Fatalf("ListNodes error = %v, want a handshake timeout", err)
	}
}

func TestListNodesConnectionRefused(t *testing.T) {
	t.Parallel()
	l := testutil.ListenLoopback(t)
	addr := l.Addr().String()
	_ = l.Close()
	cfg := validConfig(t)
	cfg.Host, cfg.Port = splitAddr(t, addr)

	_, err := mustNew(t, cfg).ListNodes(t.Context())
	if err == nil || !strings.Contains(err.Error(), "ssh "+addr+": connecting") || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("ListNodes error = %v, want connection refused", err)
	}
}
