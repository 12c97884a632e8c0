package sshlister

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// HostKeyError reports a server host key that the configuration does not accept.
type HostKeyError struct {
	// Address is the host:port that was dialled.
	Address string
	// Got is the SHA256 fingerprint of the key the server presented.
	Got string
	// Expected holds the fingerprints that would have been accepted; empty when
	// known_hosts has no entry for the address.
	Expected []string
}

// Error implements error.
func (e *HostKeyError) Error() string {
	if len(e.Expected) == 0 {
		return fmt.Sprintf("unknown host key for %s: got %s, known_hosts has no entry for this host", e.Address, e.Got)
	}
	return fmt.Sprintf("host key mismatch for %s: got %s, expected %s", e.Address, e.Got, strings.Join(e.Expected, " or "))
}

// hostKeyCheck is the verification strategy picked from the configuration.
type hostKeyCheck struct {
	callback ssh.HostKeyCallback
	// algorithms restricts negotiation to the pinned key's type, so a server that
	// also holds keys of other types presents the one we can verify.
	algorithms []string
}

func newHostKeyCheck(cfg Config) (hostKeyCheck, error) {
	switch {
	case cfg.InsecureIgnoreHostKey:
		// The caller opted in explicitly; New refuses this without the flag.
		return hostKeyCheck{callback: ssh.InsecureIgnoreHostKey()}, nil
	case cfg.HostKey != "":
		return pinnedHostKey(cfg.HostKey)
	case cfg.ParsedKnownHosts != nil:
		return cfg.ParsedKnownHosts.check, nil
	default:
		return knownHostsCheck(cfg.KnownHosts)
	}
}

// KnownHosts is known_hosts content read once, so that the listers of a
// fleet, each verifying its own control node, do not each read a thousand
// lines again.
type KnownHosts struct{ check hostKeyCheck }

// ParseKnownHosts reads known_hosts content for Config.ParsedKnownHosts.
func ParseKnownHosts(content string) (*KnownHosts, error) {
	check, err := knownHostsCheck(content)
	if err != nil {
		return nil, err
	}
	return &KnownHosts{check: check}, nil
}

func pinnedHostKey(line string) (hostKeyCheck, error) {
	want, _, _, _, err := ssh.ParseAuthorizedKey([]byte(line))
	if err != nil {
		return hostKeyCheck{}, fmt.Errorf("sshlister: HostKey is not an authorized_keys style public key line (e.g. \"ssh-ed25519 AAAA...\"): %w", err)
	}
	wantBlob := want.Marshal()
	callback := func(address string, _ net.Addr, got ssh.PublicKey) error {
		if bytes.Equal(got.Marshal(), wantBlob) {
			return nil
		}
		return &HostKeyError{Address: address, Got: ssh.FingerprintSHA256(got), Expected: []string{ssh.FingerprintSHA256(want)}}
	}
	return hostKeyCheck{callback: callback, algorithms: algorithmsFor(want.Type())}, nil
}

// algorithmsFor lists the host key algorithms that produce a key of keyType.
func algorithmsFor(keyType string) []string {
	if keyType == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{keyType}
}

func knownHostsCheck(content string) (hostKeyCheck, error) {
	if !hasEntries(content) {
		return hostKeyCheck{}, errors.New("sshlister: KnownHosts has no entries")
	}
	// knownhosts only reads files, so the content goes through a private temporary one.
	f, err := os.CreateTemp("", "cks-known-hosts-*")
	if err != nil {
		return hostKeyCheck{}, fmt.Errorf("sshlister: staging KnownHosts: %w", err)
	}
	path := f.Name()
	defer func() { _ = os.Remove(path) }()
	_, writeErr := f.WriteString(content)
	if err := errors.Join(writeErr, f.Close()); err != nil {
		return hostKeyCheck{}, fmt.Errorf("sshlister: staging KnownHosts: %w", err)
	}
	db, err := knownhosts.New(path)
	if err != nil {
		return hostKeyCheck{}, fmt.Errorf("sshlister: KnownHosts is not valid: %s", strings.ReplaceAll(err.Error(), path, "known_hosts"))
	}
	callback := func(address string, remote net.Addr, got ssh.PublicKey) error {
		err := db(address, remote, got)
		var keyErr *knownhosts.KeyError
		var revokedErr *knownhosts.RevokedError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &keyErr):
			expected := make([]string, 0, len(keyErr.Want))
			for _, k := range keyErr.Want {
				expected = append(expected, ssh.FingerprintSHA256(k.Key))
			}
			return &HostKeyError{Address: address, Got: ssh.FingerprintSHA256(got), Expected: expected}
		case errors.As(err, &revokedErr):
			return fmt.Errorf("host key %s for %s is marked @revoked in known_hosts", ssh.FingerprintSHA256(got), address)
		default:
			return fmt.Errorf("checking host key for %s: %w", address, err)
		}
	}
	return hostKeyCheck{callback: callback}, nil
}

func hasEntries(content string) bool {
	for line := range strings.Lines(content) {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			return true
		}
	}
	return false
}

// ValidateKnownHosts checks known_hosts content before any connection, more
// strictly than the lister reads it: knownhosts skips the lines it cannot
// parse as long as one line is valid, which would hide a mistyped entry
// until its host is refused. Every line that is not blank or a comment must
// be an entry here, and the lister's own parser must accept the whole.
// Errors name the line, never quote it beyond what is wrong.
func ValidateKnownHosts(content string) error {
	if !hasEntries(content) {
		return errors.New("it has no entries, only blank lines and comments")
	}
	var problems []error
	n := 0
	for line := range strings.Lines(content) {
		n++
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := checkKnownHostsLine(line); err != nil {
			problems = append(problems, fmt.Errorf("line %d: %w", n, err))
		}
	}
	if len(problems) > 0 {
		return errors.Join(problems...)
	}
	if _, err := knownHostsCheck(content); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "sshlister: "))
	}
	return nil
}

// checkKnownHostsLine checks one entry: an optional @cert-authority or
// @revoked marker, host patterns (hashed ones well formed), the key type
// and a public key of that type.
func checkKnownHostsLine(line string) error {
	fields := strings.Fields(line)
	if len(fields) > 0 && strings.HasPrefix(fields[0], "@") {
		if fields[0] != "@cert-authority" && fields[0] != "@revoked" {
			return fmt.Errorf("unknown marker %q (only @cert-authority and @revoked exist)", fields[0])
		}
		fields = fields[1:]
	}
	if len(fields) < 3 {
		return errors.New(`an entry needs host patterns, a key type and a key, e.g. "[10.0.0.1]:2222 ssh-ed25519 AAAA..."`)
	}
	for _, pattern := range strings.Split(fields[0], ",") {
		if err := checkHostPattern(pattern); err != nil {
			return err
		}
	}
	if _, _, _, _, _, err := ssh.ParseKnownHosts([]byte(line)); err != nil {
		return fmt.Errorf("the key is not valid: %w", err)
	}
	return nil
}

func checkHostPattern(pattern string) error {
	switch {
	case pattern == "" || pattern == "!":
		return errors.New("empty host pattern")
	case strings.HasPrefix(pattern, "|"):
		parts := strings.Split(pattern, "|")
		if len(parts) != 4 || parts[1] != "1" {
			return errors.New(`a hashed host must read |1|<salt>|<hash>`)
		}
		for _, b64 := range parts[2:] {
			if _, err := base64.StdEncoding.DecodeString(b64); err != nil {
				return fmt.Errorf("a hashed host is not valid base64: %w", err)
			}
		}
	}
	return nil
}
