package cloudstack

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTLSVerification (client_test.go) covers a self-signed fake server with
// and without Insecure and CAFile, and TestTLSAgainstSelfSignedSimulator
// (tls_simulator_test.go) the same against the simulator. These cases cover
// what CAFile must not weaken: the chain, the host name, the validity
// period and the protocol version are still checked, and one client's
// Insecure never leaks into another client.

// testCA is a throwaway certificate authority.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(t *testing.T, name string) testCA {
	t.Helper()
	key := newECKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return testCA{cert: cert, key: key}
}

// file writes the CA certificate as a PEM file and returns its path.
func (ca testCA) file(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw})
	if err := os.WriteFile(path, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// serverCert is a leaf certificate for a server.
type serverCert struct {
	dnsNames  []string
	ips       []net.IP
	notBefore time.Time
	notAfter  time.Time
}

func (ca testCA) issue(t *testing.T, sc serverCert) tls.Certificate {
	t.Helper()
	key := newECKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "cloudstack management server"},
		DNSNames:     sc.dnsNames,
		IPAddresses:  sc.ips,
		NotBefore:    sc.notBefore,
		NotAfter:     sc.notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func newECKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// validFor127 is a certificate valid now for 127.0.0.1.
func validFor127() serverCert {
	return serverCert{ips: []net.IP{net.IPv4(127, 0, 0, 1)}, notBefore: time.Now().Add(-time.Hour), notAfter: time.Now().Add(time.Hour)}
}

// startTLSCloudStack serves a signature-checking fake CloudStack over TLS
// with cert and the given protocol ceiling (0: Go's default).
func startTLSCloudStack(t *testing.T, cert tls.Certificate, maxVersion uint16) (*fakeCloudStack, string) {
	t.Helper()
	fake := newFakeCloudStack(t)
	fake.handle("listZones", zonesHandler())
	srv := httptest.NewUnstartedServer(fake)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are the point
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: maxVersion}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return fake, srv.URL + "/client/api"
}

func TestTLSCAFileStillVerifies(t *testing.T) {
	t.Parallel()
	serverCA := newTestCA(t, "management server CA")
	otherCA := newTestCA(t, "unrelated CA")

	cases := []struct {
		name string
		cert serverCert
		ca   testCA
		want string
	}{
		{"CA file of another authority", validFor127(), otherCA, "certificate signed by unknown authority"},
		{"certificate for another address", serverCert{
			ips: []net.IP{net.IPv4(127, 0, 0, 2)}, notBefore: time.Now().Add(-time.Hour), notAfter: time.Now().Add(time.Hour),
		}, serverCA, "certificate is valid for 127.0.0.2, not 127.0.0.1"},
		{"certificate for a host name only", serverCert{
			dnsNames: []string{"cloud.example.com"}, notBefore: time.Now().Add(-time.Hour), notAfter: time.Now().Add(time.Hour),
		}, serverCA, "doesn't contain any IP SANs"},
		{"expired certificate", serverCert{
			ips: []net.IP{net.IPv4(127, 0, 0, 1)}, notBefore: time.Now().Add(-48 * time.Hour), notAfter: time.Now().Add(-time.Hour),
		}, serverCA, "certificate has expired"},
		{"certificate not valid yet", serverCert{
			ips: []net.IP{net.IPv4(127, 0, 0, 1)}, notBefore: time.Now().Add(time.Hour), notAfter: time.Now().Add(2 * time.Hour),
		}, serverCA, "certificate has expired or is not yet valid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake, url := startTLSCloudStack(t, serverCA.issue(t, tc.cert), 0)
			caFile := tc.ca.file(t)

			_, err := newTestClient(t, url, func(c *Config) { c.CAFile = caFile }).ListZones(t.Context())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("with CAFile: err = %v, want it to contain %q", err, tc.want)
			}
			if IsTransient(err) {
				t.Errorf("a certificate error must not be retried as transient: %v", err)
			}
			if n := fake.callCount("listZones"); n != 0 {
				t.Fatalf("the request reached the server %d times despite the bad certificate", n)
			}

			// Only an explicit Insecure accepts such a server.
			if _, err := newTestClient(t, url, func(c *Config) { c.Insecure = true }).ListZones(t.Context()); err != nil {
				t.Fatalf("Insecure: %v", err)
			}
		})
	}
}

func TestTLSCAFileAcceptsAValidChain(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "management server CA")
	fake, url := startTLSCloudStack(t, ca.issue(t, validFor127()), 0)
	caFile := ca.file(t)
	zones, err := newTestClient(t, url, func(c *Config) { c.CAFile = caFile }).ListZones(t.Context())
	if err != nil || len(zones) != 1 {
		t.Fatalf("ListZones = %v, %v", zones, err)
	}
	if n := fake.callCount("listZones"); n != 1 {
		t.Fatalf("listZones reached the server %d times, want 1", n)
	}
}

// The minimum protocol version holds even with Insecure: Insecure skips
// certificate checks, not the protocol floor.
func TestTLSRefusesProtocolsBelowTLS12(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "management server CA")
	fake, url := startTLSCloudStack(t, ca.issue(t, validFor127()), tls.VersionTLS11)
	caFile := ca.file(t)
	for name, mutate := range map[string]func(*Config){
		"CAFile":   func(c *Config) { c.CAFile = caFile },
		"Insecure": func(c *Config) { c.Insecure = true },
	} {
		_, err := newTestClient(t, url, mutate).ListZones(t.Context())
		if err == nil || !strings.Contains(err.Error(), "protocol version") {
			t.Errorf("%s: err = %v, want a protocol version error", name, err)
		}
	}
	if n := fake.callCount("listZones"); n != 0 {
		t.Fatalf("a TLS 1.1 server received %d requests", n)
	}
}

// Insecure is per client: a verifying client made after an insecure one
// (same process, same server) still refuses the self-signed certificate.
func TestTLSInsecureDoesNotLeakToOtherClients(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listZones", zonesHandler())
	srv := httptest.NewUnstartedServer(fake)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)

	insecure := newTestClient(t, srv.URL, func(c *Config) { c.Insecure = true })
	if _, err := insecure.ListZones(t.Context()); err != nil {
		t.Fatalf("Insecure: %v", err)
	}
	strict := newTestClient(t, srv.URL)
	for range 2 { // also after the insecure client's connection is pooled
		if _, err := strict.ListZones(t.Context()); err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Fatalf("verifying client after an insecure one: err = %v, want a certificate error", err)
		}
		if _, err := insecure.ListZones(t.Context()); err != nil {
			t.Fatalf("Insecure again: %v", err)
		}
	}
	if n := fake.callCount("listZones"); n != 3 {
		t.Fatalf("listZones reached the server %d times, want 3 (only the insecure client's)", n)
	}
}
