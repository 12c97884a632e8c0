package endpoints

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// kubeconfigUser is the user entry name kubeadm writes into admin.conf.
const kubeconfigUser = "kubernetes-admin"

// Kubeconfig returns the cluster's admin kubeconfig as kubeadm writes it to
// admin.conf (and CKS returns it from getKubernetesClusterConfig): server
// https://<ip>:6443, certificate-authority-data of the cluster CA, user
// kubernetes-admin with a client certificate and key signed by that CA, and
// a context named after the cluster (the cluster entry too). Real kubectl
// and client-go authenticate with it. An empty clusterName falls back to
// clusterID.
func (m *Manager) Kubeconfig(clusterID, clusterName string) (string, error) {
	m.mu.Lock()
	c, ok := m.clusters[clusterID]
	var addr string
	var caPEM, certPEM, keyPEM []byte
	if ok && c.api != nil {
		addr, caPEM, certPEM, keyPEM = c.api.addr, c.creds.caPEM, c.creds.adminCertPEM, c.creds.adminKeyPEM
	}
	m.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("unknown cluster %s", clusterID)
	}
	if addr == "" {
		return "", fmt.Errorf("cluster %s has no Kubernetes API endpoint yet", clusterID)
	}
	if clusterName == "" {
		clusterName = clusterID
	}

	// Scalars are written as JSON strings, which YAML reads verbatim whatever
	// characters a cluster name holds.
	name := yamlString(clusterName)
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\n")
	b.WriteString("clusters:\n")
	b.WriteString("- name: " + name + "\n")
	b.WriteString("  cluster:\n")
	b.WriteString("    server: " + yamlString("https://"+addr) + "\n")
	b.WriteString("    certificate-authority-data: " + base64.StdEncoding.EncodeToString(caPEM) + "\n")
	b.WriteString("users:\n")
	b.WriteString("- name: " + kubeconfigUser + "\n")
	b.WriteString("  user:\n")
	b.WriteString("    client-certificate-data: " + base64.StdEncoding.EncodeToString(certPEM) + "\n")
	b.WriteString("    client-key-data: " + base64.StdEncoding.EncodeToString(keyPEM) + "\n")
	b.WriteString("contexts:\n")
	b.WriteString("- name: " + name + "\n")
	b.WriteString("  context:\n")
	b.WriteString("    cluster: " + name + "\n")
	b.WriteString("    user: " + kubeconfigUser + "\n")
	b.WriteString("current-context: " + name + "\n")
	b.WriteString("preferences: {}\n")
	return b.String(), nil
}

func yamlString(s string) string {
	out, err := json.Marshal(s)
	if err != nil {
		// Marshalling a string cannot fail; keep the value quoted regardless.
		return `""`
	}
	return string(out)
}
