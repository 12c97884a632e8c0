// Package sshlister lists Kubernetes nodes the way CloudStack CKS does: it
// connects over SSH to the first control node (user "cloud" with the cluster
// key pair) and runs `sudo /opt/bin/kubectl get nodes` there, asking for JSON
// (-o json), which it decodes with the k8s.io/api core/v1 types.
package sshlister

import (
	"errors"
	"fmt"
	"time"
)

// Defaults follow CKS's own SshHelper settings (10 s connect, 10 s key
// exchange, up to 60 s for a command's result).
const (
	// DefaultUser is the node login user CKS creates through cloud-init.
	DefaultUser = "cloud"
	// DefaultPort is the standard SSH port, used directly on Shared and ROUTED networks.
	DefaultPort = 22
	// DefaultConnectTimeout bounds the TCP connect.
	DefaultConnectTimeout = 10 * time.Second
	// DefaultHandshakeTimeout bounds the SSH handshake and authentication.
	DefaultHandshakeTimeout = 10 * time.Second
	// DefaultCommandTimeout bounds the remote command.
	DefaultCommandTimeout = 60 * time.Second
)

// ErrNoHostKeySource is returned by New when nothing verifies the server's host key.
var ErrNoHostKeySource = errors.New("sshlister: no host key verification configured: " +
	"set HostKey (an authorized_keys style line) or KnownHosts (known_hosts content), " +
	"or set InsecureIgnoreHostKey to skip verification")

// Config describes how to reach one SSH endpoint that runs kubectl.
type Config struct {
	// Host is the IP address or name to connect to.
	Host string
	// Port is the TCP port; 0 means DefaultPort. CKS forwards public port 2222 to control node 1.
	Port int
	// User is the login user; empty means DefaultUser.
	User string
	// PrivateKey is the PEM-encoded private key of the cluster key pair. It is
	// secret. Exactly one of PrivateKey, PrivateKeyFile and AgentSocket is set.
	PrivateKey []byte
	// PrivateKeyFile is the path of the PEM-encoded private key. New reads it
	// and keeps the key in memory only.
	PrivateKeyFile string
	// AgentSocket is the path of an SSH agent's unix socket, as SSH_AUTH_SOCK
	// names it. Every connection asks the agent for its keys and signs
	// through it: the private key never leaves the agent.
	AgentSocket string
	// HostKey is the expected host public key as an authorized_keys line, e.g. "ssh-ed25519 AAAA...".
	HostKey string
	// KnownHosts is known_hosts file content; hashed and [host]:port entries are honoured.
	KnownHosts string
	// ParsedKnownHosts is known_hosts content ParseKnownHosts has read,
	// for callers that make many listers with the same content (a fleet);
	// it takes the place of KnownHosts.
	ParsedKnownHosts *KnownHosts
	// InsecureIgnoreHostKey accepts any host key. Use only on trusted networks.
	InsecureIgnoreHostKey bool
	// ConnectTimeout bounds the TCP connect; 0 means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// HandshakeTimeout bounds the SSH handshake and authentication; 0 means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// CommandTimeout bounds the remote command; 0 means DefaultCommandTimeout.
	CommandTimeout time.Duration
}

// withDefaults returns a copy with zero values replaced by defaults, or an
// error naming the first invalid field. It never mentions the private key's content.
func (c Config) withDefaults() (Config, error) {
	if c.Host == "" {
		return c, errors.New("sshlister: Host is required")
	}
	if c.Port == 0 {
		c.Port = DefaultPort
	}
	if c.Port < 1 || c.Port > 65535 {
		return c, fmt.Errorf("sshlister: Port %d is out of range 1-65535", c.Port)
	}
	if c.User == "" {
		c.User = DefaultUser
	}
	credentials := 0
	for _, set := range []bool{len(c.PrivateKey) > 0, c.PrivateKeyFile != "", c.AgentSocket != ""} {
		if set {
			credentials++
		}
	}
	switch {
	case credentials == 0:
		return c, errors.New("sshlister: PrivateKey is required (or PrivateKeyFile, or AgentSocket)")
	case credentials > 1:
		return c, errors.New("sshlister: set only one of PrivateKey, PrivateKeyFile and AgentSocket")
	}
	sources := 0
	if c.HostKey != "" {
		sources++
	}
	if c.KnownHosts != "" || c.ParsedKnownHosts != nil {
		sources++
	}
	switch {
	case sources == 0 && !c.InsecureIgnoreHostKey:
		return c, ErrNoHostKeySource
	case sources > 1:
		return c, errors.New("sshlister: set only one of HostKey and KnownHosts")
	case sources == 1 && c.InsecureIgnoreHostKey:
		return c, errors.New("sshlister: InsecureIgnoreHostKey conflicts with HostKey/KnownHosts; unset one")
	}
	for _, d := range []struct {
		name string
		val  *time.Duration
		def  time.Duration
	}{
		{"ConnectTimeout", &c.ConnectTimeout, DefaultConnectTimeout},
		{"HandshakeTimeout", &c.HandshakeTimeout, DefaultHandshakeTimeout},
		{"CommandTimeout", &c.CommandTimeout, DefaultCommandTimeout},
	} {
		if *d.val < 0 {
			return c, fmt.Errorf("sshlister: %s must not be negative", d.name)
		}
		if *d.val == 0 {
			*d.val = d.def
		}
	}
	return c, nil
}
