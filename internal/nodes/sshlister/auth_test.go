package sshlister_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
)

func TestListNodesWithPrivateKeyFile(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, replyWith(nodeJSON, "", 0))
	keyFile := filepath.Join(t.TempDir(), "id_cks")
	if err := os.WriteFile(keyFile, s.clientPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := s.config()
	cfg.PrivateKey, cfg.PrivateKeyFile = nil, keyFile
	got, err := mustNew(t, cfg).ListNodes(t.Context())
	if err != nil {
		t.Fatalf("ListNodes: %v", err)
	}
	if !reflect.DeepEqual(got, nodeJSONNodes) {
		t.Fatalf("ListNodes = %#v", got)
	}
}

func TestListNodesThroughTheSSHAgent(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, replyWith(nodeJSON, "", 0))
	raw, err := ssh.ParseRawPrivateKey(s.clientPEM)
	if err != nil {
		t.Fatal(err)
	}
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: raw}); err != nil {
		t.Fatal(err)
	}
	cfg := s.config()
	cfg.PrivateKey, cfg.AgentSocket = nil, testutil.ServeAgent(t, keyring)
	l := mustNew(t, cfg)
	for range 2 {
		got, err := l.ListNodes(t.Context())
		if err != nil {
			t.Fatalf("ListNodes: %v", err)
		}
		if !reflect.DeepEqual(got, nodeJSONNodes) {
			t.Fatalf("ListNodes = %#v", got)
		}
	}
	assertOneSessionEach(t, s, 2)
}

func TestListNodesAgentProblems(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, replyWith(nodeJSON, "", 0))
	strangerPEM, _ := testutil.NewKey(t)
	stranger, err := ssh.ParseRawPrivateKey(strangerPEM)
	if err != nil {
		t.Fatal(err)
	}
	wrongKey := agent.NewKeyring()
	if err := wrongKey.Add(agent.AddedKey{PrivateKey: stranger}); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		socket  string
		wantErr string
	}{
		"agent holds no key":    {testutil.ServeAgent(t, agent.NewKeyring()), "the SSH agent (SSH_AUTH_SOCK) holds no key"},
		"agent holds other key": {testutil.ServeAgent(t, wrongKey), "unable to authenticate"},
		"no agent at socket":    {filepath.Join(t.TempDir(), "gone.sock"), "connecting to the SSH agent (SSH_AUTH_SOCK)"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := s.config()
			cfg.PrivateKey, cfg.AgentSocket = nil, tc.socket
			_, err := mustNew(t, cfg).ListNodes(t.Context())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), s.address()) {
				t.Fatalf("ListNodes error = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestNewCredentialChoices(t *testing.T) {
	t.Parallel()
	keyPEM, _ := testutil.NewKey(t)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	notAKey := filepath.Join(dir, "not-a-key")
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notAKey, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		mutate  func(*sshlister.Config)
		wantErr string
	}{
		"key and key file": {func(c *sshlister.Config) { c.PrivateKeyFile = keyFile },
			"Set only one of ssh.private_key, ssh.private_key_file and the SSH agent"},
		"key and agent": {func(c *sshlister.Config) { c.AgentSocket = "/tmp/agent.sock" },
			"Set only one of ssh.private_key, ssh.private_key_file and the SSH agent"},
		"missing key file": {func(c *sshlister.Config) { c.PrivateKey, c.PrivateKeyFile = nil, filepath.Join(dir, "nope") },
			"reading the private key file: open " + filepath.Join(dir, "nope") + ": no such file or directory"},
		"key file not a key": {func(c *sshlister.Config) { c.PrivateKey, c.PrivateKeyFile = nil, notAKey },
			notAKey + " is not a PEM-encoded SSH private key"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := validConfig(t)
			tc.mutate(&cfg)
			_, err := sshlister.New(cfg)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("New error = %v, want %q", err, tc.wantErr)
			}
		})
	}
	// A readable key file is accepted without any connection.
	cfg := validConfig(t)
	cfg.PrivateKey, cfg.PrivateKeyFile = nil, keyFile
	if _, err := sshlister.New(cfg); err != nil {
		t.Fatalf("New with a key file: %v", err)
	}
}

func TestValidateKnownHosts(t *testing.T) {
	t.Parallel()
	key := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(testutil.NewSigner(t).PublicKey())))
	good := "# control nodes\n[10.0.0.1]:2222 " + key + "\n|1|F1E1KeoE/eEWhi10WpGv4OdiO6Y=|3988QV0VE8wmZL7suNrYQLITLCg= " + key + "\n" +
		"@cert-authority *.example.com " + key + "\n"
	if err := sshlister.ValidateKnownHosts(good); err != nil {
		t.Fatalf("valid known_hosts refused: %v", err)
	}
	for name, tc := range map[string]struct{ content, wantErr string }{
		"empty":             {"", "it has no entries"},
		"comments only":     {"# nothing\n\n", "it has no entries"},
		"one word":          {"garbage\n", "line 1: an entry needs host patterns, a key type and a key"},
		"bad key":           {"[10.0.0.1]:2222 ssh-ed25519 AAAA!!!\n", "line 1: the key is not valid"},
		"type mismatch":     {"[10.0.0.1]:2222 ssh-rsa " + strings.Fields(key)[1] + "\n", "line 1: the key is not valid"},
		"bad hash":          {"|1|nothash " + key + "\n", "line 1: a hashed host must read |1|<salt>|<hash>"},
		"unknown marker":    {"@trusted host " + key + "\n", `line 1: unknown marker "@trusted"`},
		"one bad among two": {"[10.0.0.1]:2222 " + key + "\n10.0.0.2 ssh-ed25519\n", "line 2: an entry needs host patterns"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := sshlister.ValidateKnownHosts(tc.content)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("ValidateKnownHosts error = %v, want %q", err, tc.wantErr)
			}
		})
	}
}
