package sshlister

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
)

// ListNodesCommand is the command CKS itself runs on control node 1
// (`sudo /opt/bin/kubectl get nodes`) with JSON output: the core/v1 NodeList
// gives the node names, their Ready condition, roles and kubelet versions in
// one command, without parsing kubectl's human-readable table.
const ListNodesCommand = "sudo /opt/bin/kubectl get nodes -o json"

// Lister lists nodes over SSH. It is safe for concurrent use; every call opens
// its own connection.
type Lister struct {
	cfg     Config
	address string
	// client has no Auth: each connection gets its own from auth.
	client *ssh.ClientConfig
	auth   authSource
}

var _ nodes.Lister = (*Lister)(nil)

// New validates cfg, reads and parses its private key (or prepares to ask
// the SSH agent) and its host key check. Errors never contain the private key.
func New(cfg Config) (*Lister, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	auth, err := newAuthSource(cfg)
	if err != nil {
		return nil, err
	}
	check, err := newHostKeyCheck(cfg)
	if err != nil {
		return nil, err
	}
	return &Lister{
		cfg:     cfg,
		address: net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)),
		client: &ssh.ClientConfig{
			User:              cfg.User,
			HostKeyCallback:   check.callback,
			HostKeyAlgorithms: check.algorithms,
		},
		auth: auth,
	}, nil
}

func parsePrivateKey(pemBytes []byte) (ssh.Signer, error) {
	signer, err := ssh.ParsePrivateKey(pemBytes)
	var passErr *ssh.PassphraseMissingError
	switch {
	case err == nil:
		return signer, nil
	case errors.As(err, &passErr):
		return nil, errors.New("sshlister: PrivateKey is protected by a passphrase, which is not supported; supply an unencrypted key")
	default:
		// x/crypto's parse errors describe the format problem, not the key material.
		return nil, fmt.Errorf("sshlister: PrivateKey is not a valid PEM-encoded SSH private key: %w", err)
	}
}

// Address is the host:port the lister connects to.
func (l *Lister) Address() string { return l.address }

// ListNodes runs ListNodesCommand once, in one session of one connection, and
// decodes its JSON. Warnings on stderr are ignored when stdout decodes; a
// non-zero exit status is an error carrying the start of stderr.
func (l *Lister) ListNodes(ctx context.Context) ([]nodes.Node, error) {
	out, err := l.run(ctx, ListNodesCommand)
	if err != nil {
		return nil, err
	}
	list, err := decodeNodeList(out.stdout)
	if err != nil {
		return nil, fmt.Errorf("ssh %s: %q printed unexpected output: %w%s", l.address, ListNodesCommand, err, stderrSuffix(out.stderr))
	}
	return list, nil
}

type output struct {
	stdout []byte
	stderr string
}

// run executes cmd in a single session. Cancelling ctx, or exceeding a
// timeout, closes the TCP connection, since that is what unblocks every SSH read.
func (l *Lister) run(ctx context.Context, cmd string) (output, error) {
	dialer := net.Dialer{Timeout: l.cfg.ConnectTimeout}
	conn, err := dialer.DialContext(ctx, "tcp", l.address)
	if err != nil {
		return output{}, fmt.Errorf("ssh %s: connecting: %w", l.address, err)
	}
	defer func() { _ = conn.Close() }()
	closeConn := func() { _ = conn.Close() }
	defer context.AfterFunc(ctx, closeConn)()

	client, err := l.handshake(ctx, conn)
	if err != nil {
		return output{}, err
	}
	defer func() { _ = client.Close() }()

	cmdCtx, cancel := context.WithTimeout(ctx, l.cfg.CommandTimeout)
	defer cancel()
	defer context.AfterFunc(cmdCtx, closeConn)()

	session, err := client.NewSession()
	if err != nil {
		return output{}, l.interrupted(ctx, cmdCtx, fmt.Errorf("ssh %s: opening session: %w", l.address, err))
	}
	defer func() { _ = session.Close() }()
	stdout := newCappedBuffer(maxStdout)
	stderr := newCappedBuffer(maxStderr)
	session.Stdout = stdout
	session.Stderr = stderr

	runErr := session.Run(cmd)
	out := output{stdout: stdout.Bytes(), stderr: stderr.String()}
	if runErr != nil {
		return out, l.interrupted(ctx, cmdCtx, l.commandError(cmd, runErr, out.stderr))
	}
	if stdout.overflowed {
		return out, fmt.Errorf("ssh %s: %q printed more than %d bytes", l.address, cmd, maxStdout)
	}
	return out, nil
}

func (l *Lister) handshake(ctx context.Context, conn net.Conn) (*ssh.Client, error) {
	methods, release, err := l.auth(ctx)
	if err != nil {
		return nil, fmt.Errorf("ssh %s: %w", l.address, err)
	}
	defer release()
	config := *l.client
	config.Auth = methods
	if err := conn.SetDeadline(time.Now().Add(l.cfg.HandshakeTimeout)); err != nil {
		return nil, fmt.Errorf("ssh %s: %w", l.address, err)
	}
	c, chans, reqs, err := ssh.NewClientConn(conn, l.address, &config)
	if err != nil {
		var hostKeyErr *HostKeyError
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("ssh %s: handshake interrupted: %w", l.address, context.Cause(ctx))
		case errors.As(err, &hostKeyErr):
			return nil, hostKeyErr
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, fmt.Errorf("ssh %s: handshake did not finish within %s", l.address, l.cfg.HandshakeTimeout)
		default:
			return nil, fmt.Errorf("ssh %s: handshake as user %q: %w", l.address, l.cfg.User, err)
		}
	}
	if err := conn.SetDeadline(time.Time{}); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("ssh %s: %w", l.address, err)
	}
	return ssh.NewClient(c, chans, reqs), nil
}

// interrupted replaces err by the reason the connection was closed on purpose, if it was.
func (l *Lister) interrupted(ctx, cmdCtx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("ssh %s: command interrupted: %w", l.address, context.Cause(ctx))
	case cmdCtx.Err() != nil:
		return fmt.Errorf("ssh %s: command did not finish within %s: %w", l.address, l.cfg.CommandTimeout, cmdCtx.Err())
	default:
		return err
	}
}

func (l *Lister) commandError(cmd string, err error, stderr string) error {
	var exitErr *ssh.ExitError
	var missingErr *ssh.ExitMissingError
	switch {
	case errors.As(err, &exitErr):
		return &CommandError{Address: l.address, Command: cmd, ExitStatus: exitErr.ExitStatus(), Signal: exitErr.Signal(), Stderr: trimStderr(stderr)}
	case errors.As(err, &missingErr):
		return fmt.Errorf("ssh %s: connection closed before %q reported an exit status%s", l.address, cmd, stderrSuffix(stderr))
	default:
		return fmt.Errorf("ssh %s: running %q: %w%s", l.address, cmd, err, stderrSuffix(stderr))
	}
}
