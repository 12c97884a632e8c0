// Package sshlister lists Kubernetes nodes the way CloudStack CKS does: it
// connects over SSH to the first control node (user "cloud" with the cluster
// key pair) and runs `sudo /opt/bin/kubectl get nodes` there, asking for JSON
// (-o json), which it decodes with the k8s.io/api core/v1 types.
package sshlister

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
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

// Problem is a setting of a Config that can never work, found before any
// connection. Settings are named in snake case, as the ssh attribute of the
// drift data sources names them.
type Problem struct {
	// Field is the setting at fault (private_key, private_key_file,
	// agent_socket, port, host_key, known_hosts, insecure_ignore_host_key,
	// timeout), or "" when the settings as a whole lack a way to verify the
	// host key.
	Field string
	// With is, when two settings conflict, the other one.
	With string
	// Summary names the problem in a few words.
	Summary string
	// Detail explains it and how to fix it. It never quotes the private key.
	Detail string
}

func (p Problem) Error() string { return p.Summary + ": " + p.Detail }

// Validate lists the settings that can never work, without connecting: the
// credentials (exactly one of PrivateKey, PrivateKeyFile and AgentSocket, a
// key that parses, a file that holds one), the port, the host key
// verification (exactly one of HostKey, KnownHosts and
// InsecureIgnoreHostKey, each parsable) and the timeouts. Host is not
// required here: a drift check fills it from the cluster when empty.
func (c Config) Validate() []Problem {
	problems := c.credentialProblems()
	if c.Port < 0 || c.Port > 65535 {
		problems = append(problems, Problem{Field: "port", Summary: "Invalid SSH Port",
			Detail: fmt.Sprintf("ssh.port %d is out of range 1-65535.", c.Port)})
	}
	problems = append(problems, c.hostKeyProblems()...)
	for _, d := range []struct {
		name string
		val  time.Duration
	}{{"connect", c.ConnectTimeout}, {"handshake", c.HandshakeTimeout}, {"command", c.CommandTimeout}} {
		if d.val < 0 {
			problems = append(problems, Problem{Field: "timeout", Summary: "Invalid SSH Timeout",
				Detail: fmt.Sprintf("The SSH %s timeout (ssh.timeout) must not be negative.", d.name)})
		}
	}
	return problems
}

// credentialProblems checks that exactly one credential is set and that a
// key or key file is usable.
func (c Config) credentialProblems() []Problem {
	var set []string
	for _, cred := range []struct {
		field string
		set   bool
	}{{"private_key", len(c.PrivateKey) > 0}, {"private_key_file", c.PrivateKeyFile != ""}, {"agent_socket", c.AgentSocket != ""}} {
		if cred.set {
			set = append(set, cred.field)
		}
	}
	switch {
	case len(set) == 0:
		return []Problem{{Field: "private_key_file", Summary: "Missing SSH Private Key",
			Detail: "ssh needs the private key of the cluster's key pair, which CKS authorises for user cloud on " +
				"every node: set ssh.private_key_file (its path: only the path is kept in plans and state), or run an " +
				"SSH agent that holds it (SSH_AUTH_SOCK is not set), or set ssh.private_key (which Terraform keeps in " +
				"plans and state)."}}
	case len(set) > 1:
		return []Problem{{Field: set[0], With: set[1], Summary: "Conflicting SSH Private Key Settings",
			Detail: "Set only one of ssh.private_key, ssh.private_key_file and the SSH agent (SSH_AUTH_SOCK)."}}
	case set[0] == "private_key":
		if err := privateKeyProblem(c.PrivateKey); err != nil {
			return []Problem{{Field: "private_key", Summary: "Invalid SSH Private Key", Detail: "ssh.private_key: " + err.Error()}}
		}
	case set[0] == "private_key_file":
		if _, err := ReadPrivateKeyFile(c.PrivateKeyFile); err != nil {
			return []Problem{{Field: "private_key_file", Summary: "Invalid SSH Private Key File",
				Detail: "ssh.private_key_file must name a readable, unencrypted PEM private key file: " +
					strings.TrimPrefix(err.Error(), "sshlister: ")}}
		}
	}
	return nil
}

// privateKeyProblem explains an unusable private key without quoting it.
func privateKeyProblem(pemKey []byte) error {
	_, err := ssh.ParsePrivateKey(pemKey)
	var passErr *ssh.PassphraseMissingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &passErr):
		return errors.New("the private key is protected by a passphrase, which is not supported; supply an unencrypted key")
	default:
		// x/crypto describes the format problem, never the key material.
		return errors.New("the value is not a PEM private key (" + err.Error() + ")")
	}
}

// hostKeyProblems checks that the host key is verified one way, or that
// InsecureIgnoreHostKey opts out, and that the way given parses.
func (c Config) hostKeyProblems() []Problem {
	var problems []Problem
	var sources []string
	if c.HostKey != "" {
		sources = append(sources, "host_key")
		if _, _, _, _, err := ssh.ParseAuthorizedKey([]byte(c.HostKey)); err != nil {
			problems = append(problems, Problem{Field: "host_key", Summary: "Invalid SSH Host Key",
				Detail: "ssh.host_key must be one public key as an authorized_keys line, for example \"ssh-ed25519 AAAA...\" " +
					"(ssh-keyscan prints it): " + err.Error()})
		}
	}
	if c.KnownHosts != "" || c.ParsedKnownHosts != nil {
		sources = append(sources, "known_hosts")
	}
	if c.KnownHosts != "" && c.ParsedKnownHosts == nil { // parsed content was checked when it was parsed
		if err := ValidateKnownHosts(c.KnownHosts); err != nil {
			problems = append(problems, Problem{Field: "known_hosts", Summary: "Invalid SSH known_hosts",
				Detail: "ssh.known_hosts must hold known_hosts entries such as \"[10.0.0.1]:2222 ssh-ed25519 AAAA...\" " +
					"(ssh-keyscan -p 2222 10.0.0.1 prints them), one per line: " + err.Error()})
		}
	}
	if len(sources) > 1 {
		problems = append(problems, Problem{Field: "host_key", With: "known_hosts", Summary: "Conflicting Host Key Settings",
			Detail: "Set only one of ssh.host_key and ssh.known_hosts."})
	}
	switch {
	case len(sources) > 0 && c.InsecureIgnoreHostKey:
		problems = append(problems, Problem{Field: "insecure_ignore_host_key", With: sources[0],
			Summary: "Conflicting Host Key Settings",
			Detail: "ssh.insecure_ignore_host_key = true skips the host key verification that ssh.host_key or " +
				"ssh.known_hosts asks for; set only one."})
	case len(sources) == 0 && !c.InsecureIgnoreHostKey:
		problems = append(problems, Problem{Summary: "Missing SSH Host Key Verification",
			Detail: "ssh needs a host key verification: set ssh.host_key (an authorized_keys line) or ssh.known_hosts to " +
				"verify control node 1, or set ssh.insecure_ignore_host_key = true to skip the verification explicitly."})
	}
	return problems
}

// withDefaults returns a copy with zero values replaced by defaults, or an
// error listing what Validate finds. It never mentions the private key's
// content.
func (c Config) withDefaults() (Config, error) {
	if c.Host == "" {
		return c, errors.New("sshlister: Host is required")
	}
	var errs []error
	for _, p := range c.Validate() {
		if p.Field == "" {
			errs = append(errs, ErrNoHostKeySource)
			continue
		}
		errs = append(errs, fmt.Errorf("sshlister: %w", p))
	}
	if len(errs) > 0 {
		return c, errors.Join(errs...)
	}
	if c.Port == 0 {
		c.Port = DefaultPort
	}
	if c.User == "" {
		c.User = DefaultUser
	}
	for _, d := range []struct {
		val *time.Duration
		def time.Duration
	}{{&c.ConnectTimeout, DefaultConnectTimeout}, {&c.HandshakeTimeout, DefaultHandshakeTimeout}, {&c.CommandTimeout, DefaultCommandTimeout}} {
		if *d.val == 0 {
			*d.val = d.def
		}
	}
	return c, nil
}
