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
			wantErr: "set only one of HostKey and KnownHosts",
		},
		"insecure with a host key": {
			mutate:  func(c *sshlister.Config) { c.InsecureIgnoreHostKey = true },
			wantErr: "InsecureIgnoreHostKey conflicts with HostKey/KnownHosts",
		},
		"host key not a key": {
			mutate:  func(c *sshlister.Config) { c.HostKey = "ssh-ed25519 not-base64" },
			wantErr: "HostKey is not an authorized_keys style public key line",
		},
		"known_hosts without entries": {
			mutate:  func(c *sshlister.Config) { c.HostKey, c.KnownHosts = "", "# nothing\n\n" },
			wantErr: "KnownHosts has no entries",
		},
		"known_hosts with only garbage": {
			mutate:  func(c *sshlister.Config) { c.HostKey, c.KnownHosts = "", "garbage line\n" },
			wantErr: "KnownHosts is not valid: knownhosts: known_hosts: no valid entries, line 1",
		},
		"no host":             {mutate: func(c *sshlister.Config) { c.Host = "" }, wantErr: "Host is required"},
		"port out of range":   {mutate: func(c *sshlister.Config) { c.Port = 70000 }, wantErr: "Port 70000 is out of range"},
		"negative timeout":    {mutate: func(c *sshlister.Config) { c.CommandTimeout = -1 }, wantErr: "CommandTimeout must not be negative"},
		"missing private key": {mutate: func(c *sshlister.Config) { c.PrivateKey = nil }, wantErr: "PrivateKey is required"},
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
		"not PEM":        {key: "this-is-not-a-key-but-a-secret-value", wantErr: "PrivateKey is not a valid PEM-encoded SSH private key"},
		"truncated body": {key: corrupted, wantErr: "PrivateKey is not a valid PEM-encoded SSH private key"},
		"public key":     {key: string(ssh.MarshalAuthorizedKey(testutil.NewSigner(t).PublicKey())), wantErr: "PrivateKey is not a valid"},
		"passphrase":     {key: encrypted, wantErr: "PrivateKey is protected by a passphrase"},
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
