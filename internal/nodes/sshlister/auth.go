package sshlister

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// authSource gives the authentication methods of one connection and a
// function that releases what they hold once the handshake is over.
type authSource func(ctx context.Context) ([]ssh.AuthMethod, func(), error)

// newAuthSource picks the credentials of cfg, which withDefaults checked
// to be exactly one of PrivateKey, PrivateKeyFile and AgentSocket.
func newAuthSource(cfg Config) (authSource, error) {
	if cfg.AgentSocket != "" {
		return agentAuth(cfg.AgentSocket, cfg.ConnectTimeout), nil
	}
	pemBytes := cfg.PrivateKey
	if cfg.PrivateKeyFile != "" {
		var err error
		if pemBytes, err = ReadPrivateKeyFile(cfg.PrivateKeyFile); err != nil {
			return nil, err
		}
	}
	signer, err := parsePrivateKey(pemBytes)
	if err != nil {
		return nil, err
	}
	methods := []ssh.AuthMethod{ssh.PublicKeys(signer)}
	return func(context.Context) ([]ssh.AuthMethod, func(), error) { return methods, func() {}, nil }, nil
}

// ReadPrivateKeyFile reads a private key file and checks that it holds an
// unencrypted PEM private key. Its errors name the file, never its content.
func ReadPrivateKeyFile(path string) ([]byte, error) {
	pemBytes, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sshlister: reading the private key file: %w", err)
	}
	if _, err := ssh.ParsePrivateKey(pemBytes); err != nil {
		var passErr *ssh.PassphraseMissingError
		if errors.As(err, &passErr) {
			return nil, fmt.Errorf("sshlister: the private key in %s is protected by a passphrase, which is not supported; "+
				"load it into an SSH agent instead", path)
		}
		// x/crypto describes the format problem, never the key material.
		return nil, fmt.Errorf("sshlister: %s is not a PEM-encoded SSH private key: %w", path, err)
	}
	return pemBytes, nil
}

// agentAuth signs through the SSH agent at socket. Each connection opens
// its own agent connection, which stays open until the handshake is over:
// the agent signs the authentication request, so the key never leaves it.
func agentAuth(socket string, timeout time.Duration) authSource {
	return func(ctx context.Context) ([]ssh.AuthMethod, func(), error) {
		dialer := net.Dialer{Timeout: timeout}
		conn, err := dialer.DialContext(ctx, "unix", socket)
		if err != nil {
			return nil, nil, fmt.Errorf("connecting to the SSH agent (SSH_AUTH_SOCK): %w", err)
		}
		release := func() { _ = conn.Close() }
		signers, err := agent.NewClient(conn).Signers()
		if err != nil {
			release()
			return nil, nil, fmt.Errorf("listing the keys of the SSH agent (SSH_AUTH_SOCK): %w", err)
		}
		if len(signers) == 0 {
			release()
			return nil, nil, errors.New("the SSH agent (SSH_AUTH_SOCK) holds no key: add the cluster's key with ssh-add")
		}
		return []ssh.AuthMethod{ssh.PublicKeys(signers...)}, release, nil
	}
}
