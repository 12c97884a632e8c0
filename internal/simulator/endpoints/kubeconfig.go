package endpoints

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// kubeconfigUser is the user entry name kubeadm writes into admin.conf.
const kubeconfigUser = "kubernetes-admin"

// Kubeconfig returns a kubeconfig YAML that real kubectl accepts: server
// https://<ip>:6443, certificate-authority-data of the cluster CA, a bearer
// token user, and a context named after the cluster (the cluster entry too).
// An empty clusterName falls back to clusterID.
func (m *Manager) Kubeconfig(clusterID, clusterName string) (string, error) {
	m.mu.Lock()
	c, ok := m.clusters[clusterID]
	var addr, token string
	var caPEM []byte
	if ok && c.api != nil {
		addr, token, caPEM = c.api.addr, c.creds.token, c.creds.caPEM
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
	b.WriteString("    token: " + yamlString(token) + "\n")
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
