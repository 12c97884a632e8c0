package provider

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// Transport security at the Terraform level:
//
//	check                                                        | where
//	-------------------------------------------------------------+--------------------------------------------------------------
//	self-signed API endpoint refused without ca_file or insecure | TestTransport_selfSignedAPIEndpoint (no request reaches it)
//	a ca_file of another authority is refused too                | TestTransport_selfSignedAPIEndpoint
//	ca_file with the endpoint's CA: a cluster's whole lifecycle  | TestTransport_selfSignedAPIEndpoint
//	insecure = true accepts the endpoint                         | TestTransport_selfSignedAPIEndpoint
//	drift read with a wrong ssh.host_key is refused              | TestAccClusterDrift_WrongHostKeyIsRefused (cluster_drift_gate_test.go)
//	host key checked on every connection, of any key type        | internal/nodes/sshlister/hostkey_security_test.go
//	chain, host name, validity and TLS 1.2 floor kept by ca_file | internal/cloudstack/tls_security_test.go

// overTLS is a provider block on the TLS endpoint of a simulator started
// with simtest.WithTLS (httptest's self-signed certificate, which
// Env.CAFile holds), with the settings given, and a Kubernetes version
// lookup.
func overTLS(s *simEnv, settings ...string) string {
	return s.providerAt(s.Info.APIURL, settings...) + fmt.Sprintf(`
data "cks_kubernetes_version" "v" {
  zone_id          = %q
  semantic_version = "1.33.13"
}
`, s.Info.ZoneID)
}

// relOtherCAFile writes the certificate of a fresh self-signed authority
// (httptest's servers all share one certificate, so another server's would
// not do).
func relOtherCAFile(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "unrelated CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestTransport_selfSignedAPIEndpoint(t *testing.T) {
	t.Parallel()
	s := newSimEnv(t, simtest.WithTLS())
	otherCA := relOtherCAFile(t)
	cluster := func(settings ...string) string {
		return s.cluster("over-tls").set("kubernetes_version_id", hcl("data.cks_kubernetes_version.v.id")).
			through(overTLS(s, settings...)).String()
	}
	noRequests := func() {
		if calls := s.Sim.CallCounts(); len(calls) != 0 {
			t.Fatalf("the endpoint answered %v although its certificate was refused", calls)
		}
	}
	versionID := statecheck.ExpectKnownValue("data.cks_kubernetes_version.v", tfjsonpath.New("id"),
		knownvalue.StringExact(s.Info.KubernetesVersions["1.33.13"]))

	accTest(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			for _, c := range s.Sim.DumpState().Clusters {
				if !c.Removed {
					return fmt.Errorf("cluster %s is left after destroy", c.Name)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				// Verification is on by default: the self-signed endpoint is
				// refused with the certificate error, before any command.
				Config:   overTLS(s),
				PlanOnly: true,
				ExpectError: errorFragments("Unable to List Kubernetes Versions", "listKubernetesSupportedVersions",
					"tls: failed to verify certificate: x509: certificate signed by unknown authority"),
			},
			{
				// A CA file of another authority does not help.
				PreConfig:   noRequests,
				Config:      overTLS(s, fmt.Sprintf("ca_file = %q", otherCA)),
				PlanOnly:    true,
				ExpectError: errorFragments("Unable to List Kubernetes Versions", "x509: certificate signed by unknown authority"),
			},
			{
				// The endpoint's CA in ca_file: a whole cluster lifecycle
				// (create, job polling, refresh) over verified TLS.
				PreConfig:         noRequests,
				Config:            cluster(fmt.Sprintf("ca_file = %q", s.CAFile)),
				ConfigStateChecks: []statecheck.StateCheck{versionID, expectAttr("state", knownvalue.StringExact("Running"))},
			},
			{
				// insecure = true accepts the endpoint; the plan is empty.
				Config:            cluster("insecure = true"),
				ConfigStateChecks: []statecheck.StateCheck{versionID},
			},
		},
	})
}
