package sshlister

import (
	"bytes"
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
	default:
		return knownHostsCheck(cfg.KnownHosts)
	}
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
