package sshlister_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
)

func splitAddr(t *testing.T, addr string) (string, int) {
	t.Helper()
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		t.Fatal(err)
	}
	return host, port
}

func validConfig(t *testing.T) sshlister.Config {
	t.Helper()
	keyPEM, _ := testutil.NewKey(t)
	return sshlister.Config{
		Host:       "127.20.0.1",
		PrivateKey: keyPEM,
		HostKey:    string(ssh.MarshalAuthorizedKey(testutil.NewSigner(t).PublicKey())),
	}
}

func TestNewValidation(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		mutate  func(*sshlister.Config)
		wantErr string
	}{
		"no host key source": {
			mutate:  func(c *sshlister.Config) { c.HostKey = "" },
			wantErr: "set HostKey (an authorized_keys style line) or KnownHosts (known_hosts content), or set InsecureIgnoreHostKey",
		},
		"both host key sources": {
			mutate:  func(c *sshlister.Config) { c.KnownHosts = "h " + c.HostKey },
			wantErr: "Set only one of ssh.host_key and ssh.known_hosts",
		},
		"insecure with a host key": {
			mutate:  func(c *sshlister.Config) { c.InsecureIgnoreHostKey = true },
			wantErr: "ssh.insecure_ignore_host_key = true skips the host key verification",
		},
		"host key not a key": {
			mutate:  func(c *sshlister.Config) { c.HostKey = "ssh-ed25519 not-base64" },
			wantErr: "ssh.host_key must be one public key as an authorized_keys line",
		},
		"known_hosts without entries": {
			mutate:  func(c *sshlister.Config) { c.HostKey, c.KnownHosts = "", "# nothing\n\n" },
			wantErr: "ssh.known_hosts must hold known_hosts entries",
		},
		"known_hosts with only garbage": {
			mutate:  func(c *sshlister.Config) { c.HostKey, c.KnownHosts = "", "garbage line\n" },
			wantErr: "one per line: line 1: an entry needs host patterns",
		},
		"no host":             {mutate: func(c *sshlister.Config) { c.Host = "" }, wantErr: "Host is required"},
		"port out of range":   {mutate: func(c *sshlister.Config) { c.Port = 70000 }, wantErr: "ssh.port 70000 is out of range 1-65535"},
		"negative timeout":    {mutate: func(c *sshlister.Config) { c.CommandTimeout = -1 }, wantErr: "SSH command timeout (ssh.timeout) must not be negative"},
		"missing private key": {mutate: func(c *sshlister.Config) { c.PrivateKey = nil }, wantErr: "ssh needs the private key of the cluster's key pair"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := validConfig(t)
			tc.mutate(&cfg)
			l, err := sshlister.New(cfg)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("New = %v, %v; want error containing %q", l, err, tc.wantErr)
			}
		})
	}

	_, err := sshlister.New(sshlister.Config{Host: "h", PrivateKey: []byte("x")})
	if !errors.Is(err, sshlister.ErrNoHostKeySource) {
		t.Fatalf("New without host key source = %v, want ErrNoHostKeySource", err)
	}
}

func TestNewDefaults(t *testing.T) {
	t.Parallel()
	l, err := sshlister.New(validConfig(t))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if l.Address() != "127.20.0.1:22" {
		t.Fatalf("Address = %q, want the default port 22", l.Address())
	}
}

func TestNewBadPrivateKeyIsNotEchoed(t *testing.T) {
	t.Parallel()
	goodPEM, _ := testutil.NewKey(t)
	body := strings.Split(strings.TrimSpace(string(goodPEM)), "\n")
	corrupted := strings.Join(append(append([]string{body[0]}, body[1:3]...), body[len(body)-1]), "\n")

	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	encBlock, err := ssh.MarshalPrivateKeyWithPassphrase(priv, "", []byte("secret passphrase"))
	if err != nil {
		t.Fatal(err)
	}
	encrypted := string(pem.EncodeToMemory(encBlock))

	tests := map[string]struct {
		key     string
		wantErr string
	}{
		"not PEM":        {key: "this-is-not-a-key-but-a-secret-value", wantErr: "ssh.private_key: the value is not a PEM private key"},
		"truncated body": {key: corrupted, wantErr: "ssh.private_key: the value is not a PEM private key"},
		"public key":     {key: string(ssh.MarshalAuthorizedKey(testutil.NewSigner(t).PublicKey())), wantErr: "the value is not a PEM private key"},
		"passphrase":     {key: encrypted, wantErr: "the private key is protected by a passphrase"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := validConfig(t)
			cfg.PrivateKey = []byte(tc.key)
			_, err := sshlister.New(cfg)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("New error = %v, want %q", err, tc.wantErr)
			}
			for line := range strings.Lines(tc.key) {
				line = strings.TrimSpace(line)
				if len(line) >= 8 && !strings.HasPrefix(line, "-----") && strings.Contains(err.Error(), line) {
					t.Fatalf("error %q echoes key material %q", err, line)
				}
			}
			for i := 0; i+12 <= len(tc.key); i += 4 {
				if chunk := tc.key[i : i+12]; !strings.ContainsAny(chunk, "-\n ") && strings.Contains(err.Error(), chunk) {
					t.Fatalf("error %q echoes key material %q", err, chunk)
				}
			}
		})
	}
}

// Validate names the setting at fault as the drift data sources' ssh
// attribute does, so that a caller can point at it.
func TestValidateNamesTheField(t *testing.T) {
	t.Parallel()
	keyPEM, hostKey := testutil.NewKeyPair(t)
	tests := map[string]struct {
		cfg         sshlister.Config
		field, with string
	}{
		"no credential":       {sshlister.Config{HostKey: hostKey}, "private_key_file", ""},
		"key and agent":       {sshlister.Config{PrivateKey: keyPEM, AgentSocket: "/run/a.sock", HostKey: hostKey}, "private_key", "agent_socket"},
		"bad key":             {sshlister.Config{PrivateKey: []byte("x"), HostKey: hostKey}, "private_key", ""},
		"missing key file":    {sshlister.Config{PrivateKeyFile: "/nonexistent/key", HostKey: hostKey}, "private_key_file", ""},
		"port":                {sshlister.Config{PrivateKey: keyPEM, HostKey: hostKey, Port: -1}, "port", ""},
		"bad host key":        {sshlister.Config{PrivateKey: keyPEM, HostKey: "garbage"}, "host_key", ""},
		"bad known_hosts":     {sshlister.Config{PrivateKey: keyPEM, KnownHosts: "garbage\n"}, "known_hosts", ""},
		"both host key ways":  {sshlister.Config{PrivateKey: keyPEM, HostKey: hostKey, KnownHosts: "h " + hostKey}, "host_key", "known_hosts"},
		"insecure and pinned": {sshlister.Config{PrivateKey: keyPEM, HostKey: hostKey, InsecureIgnoreHostKey: true}, "insecure_ignore_host_key", "host_key"},
		"no verification":     {sshlister.Config{PrivateKey: keyPEM}, "", ""},
		"negative timeout":    {sshlister.Config{PrivateKey: keyPEM, HostKey: hostKey, ConnectTimeout: -1}, "timeout", ""},
	}
	for name, tc := range tests {
		problems := tc.cfg.Validate()
		if len(problems) != 1 || problems[0].Field != tc.field || problems[0].With != tc.with {
			t.Errorf("%s: Validate = %+v, want one problem on %q (with %q)", name, problems, tc.field, tc.with)
		}
	}
	if problems := (sshlister.Config{PrivateKey: keyPEM, HostKey: hostKey}).Validate(); len(problems) != 0 {
		t.Errorf("valid settings: %+v", problems)
	}
}
