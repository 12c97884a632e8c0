package endpoints

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"

	"golang.org/x/crypto/ssh"
)

// credentials are a cluster's secrets. They live as long as the cluster, so
// host-key pinning and kubeconfigs stay valid across forward and API restarts.
type credentials struct {
	hostSigner ssh.Signer
	caCert     *x509.Certificate
	caKey      *ecdsa.PrivateKey
	caPEM      []byte
	caPool     *x509.CertPool
	// adminCertPEM and adminKeyPEM are kubeadm's admin.conf client
	// credentials: CN kubernetes-admin in group kubeadm:cluster-admins,
	// signed by the cluster CA.
	adminCertPEM []byte
	adminKeyPEM  []byte
}

// Groups kube-apiserver's RBAC lets do anything (kubeadm's bindings).
var clusterAdminGroups = []string{"kubeadm:cluster-admins", "system:masters"}

// certValidity is long enough that no test or demo outlives it.
const certValidity = 10 * 365 * 24 * time.Hour

func newCredentials(clusterID string) (*credentials, error) {
	_, hostKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate host key: %w", err)
	}
	signer, err := ssh.NewSignerFromKey(hostKey)
	if err != nil {
		return nil, fmt.Errorf("host key signer: %w", err)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: "kubernetes", OrganizationalUnit: []string{clusterID}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("self-sign CA: %w", err)
	}
	caCert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse CA: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	c := &credentials{
		hostSigner: signer,
		caCert:     caCert,
		caKey:      caKey,
		caPEM:      pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		caPool:     pool,
	}
	c.adminCertPEM, c.adminKeyPEM, err = c.clientCert(kubeconfigUser, clusterAdminGroups[:1])
	if err != nil {
		return nil, err
	}
	return c, nil
}

// clientCert issues a client certificate (CN user, O groups) signed by the
// cluster CA, as kubeadm does for admin.conf, and returns it and its key in
// PEM.
func (c *credentials) clientCert(user string, groups []string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate client key: %w", err)
	}
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: user, Organization: groups},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, c.caCert, &key.PublicKey, c.caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("sign client certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encode client key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

// authenticate is kube-apiserver's x509 authenticator: the client's
// certificate must chain to the cluster CA and allow client auth. It
// returns the user (CN) and groups (O).
func (c *credentials) authenticate(state *tls.ConnectionState) (user string, groups []string, ok bool) {
	if state == nil || len(state.PeerCertificates) == 0 {
		return "", nil, false
	}
	leaf := state.PeerCertificates[0]
	inter := x509.NewCertPool()
	for _, cert := range state.PeerCertificates[1:] {
		inter.AddCert(cert)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: c.caPool, Intermediates: inter,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		return "", nil, false
	}
	return leaf.Subject.CommonName, leaf.Subject.Organization, true
}

// servingCert issues the API server certificate for ip, signed by the cluster CA.
func (c *credentials) servingCert(ip string) (tls.Certificate, error) {
	addr := net.ParseIP(ip)
	if addr == nil {
		return tls.Certificate{}, fmt.Errorf("invalid IP address %q", ip)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generate serving key: %w", err)
	}
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{addr},
		DNSNames:     []string{"kubernetes", "kubernetes.default", "kubernetes.default.svc"},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, c.caCert, &key.PublicKey, c.caKey)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("sign serving certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der, c.caCert.Raw}, PrivateKey: key}, nil
}

func randomSerial() *big.Int {
	limit := new(big.Int).Lsh(big.NewInt(1), 62)
	n, err := rand.Int(rand.Reader, limit)
	if err != nil {
		// crypto/rand never fails on Linux; a fixed serial is still a valid certificate.
		return big.NewInt(1)
	}
	return n.Add(n, big.NewInt(1))
}
