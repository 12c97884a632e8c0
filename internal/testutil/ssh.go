package testutil

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// NewKey is a fresh ed25519 key: its unencrypted OpenSSH PEM and a signer.
func NewKey(t testing.TB) ([]byte, ssh.Signer) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(block), signer
}

// NewSigner is a fresh ed25519 key, as a host key or a stranger's key.
func NewSigner(t testing.TB) ssh.Signer {
	t.Helper()
	_, signer := NewKey(t)
	return signer
}

// NewKeyPair is a fresh private key (PEM) and, for a key that is the host's,
// its public key line in authorized_keys form, without the newline.
func NewKeyPair(t testing.TB) (privatePEM []byte, publicLine string) {
	t.Helper()
	key, signer := NewKey(t)
	return key, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
}

// ServeAgent serves keyring on a unix socket in a temporary directory, as
// ssh-agent does, and returns the socket's path.
func ServeAgent(t testing.TB, keyring agent.Agent) string {
	t.Helper()
	socket := filepath.Join(SocketDir(t), "agent.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	Serve(t, ln, func(conn net.Conn) {
		defer func() { _ = conn.Close() }()
		_ = agent.ServeAgent(keyring, conn)
	})
	return socket
}

// SocketDir is a temporary directory short enough for a unix socket path
// (about 104 bytes at most): t.TempDir() unless that is too long.
func SocketDir(t testing.TB) string {
	t.Helper()
	if dir := t.TempDir(); len(dir) < 80 {
		return dir
	}
	dir, err := os.MkdirTemp("/tmp", "cks-agent-") //nolint:usetesting // t.TempDir() is too long here
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}
