package simtest

import (
	"bytes"
	"errors"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// HostKey is the SSH host key of the cluster's nodes.
func (e *Env) HostKey(clusterID string) ssh.PublicKey {
	e.t.Helper()
	key := e.Sim.HostKey(clusterID)
	if key == nil {
		e.t.Fatalf("no host key for cluster %s", clusterID)
	}
	return key
}

// HostKeyLine is HostKey as an authorized_keys line.
func (e *Env) HostKeyLine(clusterID string) string {
	e.t.Helper()
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(e.HostKey(clusterID))))
}

// RunSSH runs a command as user cloud with the seeded key pair on addr and
// returns what it printed (stdout, then stderr) and its exit status. A nil
// hostKey accepts any host key. A command that runs and exits non-zero is
// not an error: err is a failure to connect, authenticate or run.
func (e *Env) RunSSH(addr string, hostKey ssh.PublicKey, command string) (out string, status int, err error) {
	signer, err := ssh.ParsePrivateKey(e.Sim.PrivateKeyPEM())
	if err != nil {
		return "", 0, err
	}
	check := ssh.InsecureIgnoreHostKey() // the simulator's host keys are made per run
	if hostKey != nil {
		check = ssh.FixedHostKey(hostKey)
	}
	cfg := &ssh.ClientConfig{User: "cloud", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}, HostKeyCallback: check,
		Timeout: 10 * time.Second}
	client, err := ssh.Dial("tcp", addr, cfg)
	if err != nil {
		return "", 0, err
	}
	defer client.Close()
	session, err := client.NewSession()
	if err != nil {
		return "", 0, err
	}
	defer session.Close()
	// Separate buffers: the session copies both streams concurrently.
	var stdout, stderr bytes.Buffer
	session.Stdout, session.Stderr = &stdout, &stderr
	err = session.Run(command)
	out = stdout.String() + stderr.String()
	var exit *ssh.ExitError
	if errors.As(err, &exit) {
		return out, exit.ExitStatus(), nil
	}
	return out, 0, err
}
