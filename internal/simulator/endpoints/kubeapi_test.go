package endpoints

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubectlPath is the real kubectl found on PATH; errNoKubectl makes the
// tests that run it skip where there is none.
var kubectlPath, errNoKubectl = exec.LookPath("kubectl")

// kubectl runs the real kubectl binary against the cluster's kubeconfig,
// with a private HOME and cache so tests do not share discovery caches.
func (c *testCluster) kubectl(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	if errNoKubectl != nil {
		t.Skipf("this test runs the real kubectl against the simulated API, and none is on PATH: %v", errNoKubectl)
	}
	dir := t.TempDir()
	kubeconfig, kerr := c.m.Kubeconfig(c.id, "test1")
	if kerr != nil {
		t.Fatal(kerr)
	}
	path := filepath.Join(dir, "kubeconfig")
	if werr := os.WriteFile(path, []byte(kubeconfig), 0o600); werr != nil {
		t.Fatal(werr)
	}
	cmd := exec.CommandContext(t.Context(), kubectlPath, append([]string{"--kubeconfig", path, "--cache-dir", filepath.Join(dir, "cache")}, args...)...)
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

func TestRealKubectlListsNodes(t *testing.T) {
	t.Parallel()
	// /usr/bin/kubectl dispatches to the kubectl release matching the
	// server version, so both releases in use are exercised.
	for _, version := range []string{"v1.32.4", "v1.33.13"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			c := newTestCluster(t)
			nodes := sampleNodes()
			for i := range nodes {
				nodes[i].Version = version
			}
			c.src.setNodes(c.id, nodes...)

			stdout, stderr, err := c.kubectl(t, "get", "nodes", "-o", "name")
			if err != nil {
				t.Fatalf("kubectl get nodes -o name: %v\n%s", err, stderr)
			}
			want := "node/test1-control-18fe761907b\nnode/test1-node-18fe7619a3c\nnode/test1-node-18fe761a001\n"
			if stdout != want {
				t.Fatalf("kubectl -o name printed %q, want %q (stderr %q)", stdout, want, stderr)
			}

			// The server-side table, printed by the real kubectl, is exactly
			// what the simulated kubectl prints over SSH.
			client := c.client(t, controlPort)
			for _, args := range [][]string{{"get", "nodes"}, {"get", "nodes", "-o", "wide"}, {"get", "nodes", "--no-headers"}, {"get", "node", "test1-node-18fe7619a3c"}} {
				stdout, stderr, err := c.kubectl(t, args...)
				if err != nil {
					t.Fatalf("kubectl %v: %v\n%s", args, err, stderr)
				}
				viaSSH := run(t, client, "sudo /opt/bin/kubectl "+strings.Join(args, " "))
				if stdout != viaSSH.stdout || viaSSH.status != 0 {
					t.Errorf("kubectl %v printed:\n%s\nthe SSH node printed:\n%s", args, stdout, viaSSH.stdout)
				}
			}
			stdout, _, _ = c.kubectl(t, "get", "nodes")
			if want := strings.ReplaceAll(wantNodeTable, "v1.33.13", version); stdout != want {
				t.Errorf("kubectl get nodes printed:\n%s\nwant:\n%s", stdout, want)
			}
		})
	}
}

func TestRealKubectlErrors(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)

	_, stderr, err := c.kubectl(t, "get", "node", "missing")
	if err == nil || !strings.Contains(stderr, `nodes "missing" not found`) {
		t.Fatalf("get missing node: err %v stderr %q", err, stderr)
	}
	viaSSH := c.exec(t, controlPort, "sudo /opt/bin/kubectl get node missing")
	if strings.TrimSpace(viaSSH.stderr) != strings.TrimSpace(stderr) {
		t.Errorf("missing node: SSH stderr %q, kubectl stderr %q", viaSSH.stderr, stderr)
	}

	c.src.setNodes(c.id)
	stdout, stderr, err := c.kubectl(t, "get", "nodes")
	if err != nil || stdout != "" || strings.TrimSpace(stderr) != "No resources found" {
		t.Fatalf("empty cluster: err %v stdout %q stderr %q", err, stdout, stderr)
	}
	viaSSH = c.exec(t, controlPort, "sudo /opt/bin/kubectl get nodes")
	if viaSSH.status != 0 || viaSSH.stdout != "" || viaSSH.stderr != stderr {
		t.Errorf("empty cluster over SSH: %+v, kubectl stderr %q", viaSSH, stderr)
	}

	c.m.FailNextKubeAPI(http.StatusInternalServerError, 100)
	_, stderr, err = c.kubectl(t, "get", "nodes", "-o", "name")
	c.m.FailNextKubeAPI(0, 0)
	if err == nil || !strings.Contains(stderr, "Error from server (InternalError)") {
		t.Fatalf("failing API: err %v stderr %q", err, stderr)
	}
}

// restClient builds a client-go REST client for the core group from the
// cluster's kubeconfig, as the kubeconfig-based node lister does.
func (c *testCluster) restClient(t *testing.T, clusterName string) *rest.RESTClient {
	t.Helper()
	kubeconfig, err := c.m.Kubeconfig(c.id, clusterName)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(kubeconfig))
	if err != nil {
		t.Fatalf("load kubeconfig: %v", err)
	}
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	cfg.APIPath = "/api"
	cfg.GroupVersion = &schema.GroupVersion{Version: "v1"}
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

func TestClientGoReadsNodes(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	rc := c.restClient(t, "test1")
	ctx := t.Context()

	var list corev1.NodeList
	if err := rc.Get().Resource("nodes").Do(ctx).Into(&list); err != nil {
		t.Fatalf("list nodes: %v", err)
	}
	if len(list.Items) != 3 {
		t.Fatalf("got %d nodes, want 3", len(list.Items))
	}
	type view struct {
		name, ready, version, internalIP string
		control                          bool
		created                          int64
	}
	want := []view{
		{"test1-control-18fe761907b", "True", "v1.33.13", "10.1.1.10", true, testNow.Unix() - 48*3600},
		{"test1-node-18fe7619a3c", "True", "v1.33.13", "10.1.1.11", false, testNow.Unix() - 3*3600},
		{"test1-node-18fe761a001", "Unknown", "v1.33.13", "10.1.1.12", false, testNow.Unix() - 45},
	}
	for i, n := range list.Items {
		got := view{name: n.Name, version: n.Status.NodeInfo.KubeletVersion, created: n.CreationTimestamp.Unix()}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				got.ready = string(cond.Status)
			}
		}
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				got.internalIP = a.Address
			}
		}
		_, got.control = n.Labels["node-role.kubernetes.io/control-plane"]
		if got != want[i] {
			t.Errorf("node %d = %+v, want %+v", i, got, want[i])
		}
		if n.UID == "" || n.Labels["kubernetes.io/hostname"] != n.Name {
			t.Errorf("node %s lacks uid or hostname label: %+v", n.Name, n.ObjectMeta)
		}
	}

	var one corev1.Node
	if err := rc.Get().Resource("nodes").Name("test1-node-18fe7619a3c").Do(ctx).Into(&one); err != nil {
		t.Fatalf("get node: %v", err)
	}
	if one.Name != "test1-node-18fe7619a3c" || one.UID != list.Items[1].UID {
		t.Fatalf("get node returned %s (%s), want the listed node", one.Name, one.UID)
	}

	err := rc.Get().Resource("nodes").Name("missing").Do(ctx).Error()
	if !apierrors.IsNotFound(err) {
		t.Fatalf("get missing node: err = %v, want NotFound", err)
	}

	var controls corev1.NodeList
	if err := rc.Get().Resource("nodes").Param("labelSelector", "node-role.kubernetes.io/control-plane").Do(ctx).Into(&controls); err != nil {
		t.Fatal(err)
	}
	if len(controls.Items) != 1 || controls.Items[0].Name != "test1-control-18fe761907b" {
		t.Fatalf("label selector kept %d nodes", len(controls.Items))
	}
}

func TestFailNextKubeAPI(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	rc := c.restClient(t, "test1")
	ctx := t.Context()

	c.m.FailNextKubeAPI(http.StatusInternalServerError, 2)
	for i := range 2 {
		err := rc.Get().Resource("nodes").Do(ctx).Error()
		var statusErr *apierrors.StatusError
		if !apierrors.IsInternalError(err) || !errors.As(err, &statusErr) || statusErr.ErrStatus.Code != http.StatusInternalServerError {
			t.Fatalf("request %d: err = %v, want a 500 Status", i, err)
		}
	}
	if err := rc.Get().Resource("nodes").Do(ctx).Error(); err != nil {
		t.Fatalf("third request: %v", err)
	}

	c.m.FailNextKubeAPI(http.StatusForbidden, 1)
	if err := rc.Get().AbsPath("/version").Do(ctx).Error(); !apierrors.IsForbidden(err) {
		t.Fatalf("discovery under failure: err = %v, want 403", err)
	}
	c.m.FailNextKubeAPI(http.StatusForbidden, 3)
	c.m.FailNextKubeAPI(http.StatusForbidden, 0) // cancels
	if err := rc.Get().Resource("nodes").Do(ctx).Error(); err != nil {
		t.Fatalf("after cancelling failures: %v", err)
	}
}

// rawGet sends a GET to the cluster's API with the given client
// certificate (nil for none) and Accept header, trusting the cluster CA.
func (c *testCluster) rawGet(t *testing.T, path string, cert *tls.Certificate, accept string) (*http.Response, []byte) {
	t.Helper()
	cfg := c.kubeconfig(t)
	cluster := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster]
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(cluster.CertificateAuthorityData) {
		t.Fatal("kubeconfig CA is not PEM")
	}
	tlsConfig := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if cert != nil {
		tlsConfig.Certificates = []tls.Certificate{*cert}
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	t.Cleanup(client.CloseIdleConnections)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, cluster.Server+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// kubeconfig is the cluster's kubeconfig, parsed.
func (c *testCluster) kubeconfig(t *testing.T) *clientcmdapi.Config {
	t.Helper()
	kubeconfig, err := c.m.Kubeconfig(c.id, "")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load([]byte(kubeconfig))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// adminCert is the client certificate of the kubeconfig's user.
func (c *testCluster) adminCert(t *testing.T) *tls.Certificate {
	t.Helper()
	cfg := c.kubeconfig(t)
	user := cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo]
	if user.Token != "" || len(user.ClientCertificateData) == 0 || len(user.ClientKeyData) == 0 {
		t.Fatalf("kubeconfig user %+v: want client certificate and key data, no token", user)
	}
	cert, err := tls.X509KeyPair(user.ClientCertificateData, user.ClientKeyData)
	if err != nil {
		t.Fatalf("kubeconfig client certificate: %v", err)
	}
	return &cert
}

// issuedCert is a client certificate for user and groups signed by ca (the
// cluster's credentials, or another cluster's for a foreign one).
func issuedCert(t *testing.T, ca *credentials, user string, groups []string) *tls.Certificate {
	t.Helper()
	certPEM, keyPEM, err := ca.clientCert(user, groups)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return &cert
}

func decodeStatus(t *testing.T, body []byte) metav1.Status {
	t.Helper()
	var s metav1.Status
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatalf("body %q is not a Status: %v", body, err)
	}
	if s.Kind != "Status" || s.APIVersion != "v1" || s.Status != metav1.StatusFailure {
		t.Fatalf("body %q is not a failure Status", body)
	}
	return s
}

func TestKubeAPIAuthenticatesClientCertificates(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	foreign, err := newCredentials("another")
	if err != nil {
		t.Fatal(err)
	}
	c.m.mu.Lock()
	own := c.m.clusters[c.id].creds
	c.m.mu.Unlock()
	for name, cert := range map[string]*tls.Certificate{
		"no certificate":     nil,
		"another cluster CA": issuedCert(t, foreign, kubeconfigUser, clusterAdminGroups[:1]),
	} {
		resp, body := c.rawGet(t, "/api/v1/nodes", cert, "")
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s: status %d", name, resp.StatusCode)
		}
		if s := decodeStatus(t, body); s.Code != 401 || s.Reason != metav1.StatusReasonUnauthorized {
			t.Fatalf("%s: %+v", name, s)
		}
	}
	// Authenticated, but not in an admin group: forbidden.
	resp, body := c.rawGet(t, "/api/v1/nodes", issuedCert(t, own, "jane", []string{"developers"}), "")
	if resp.StatusCode != http.StatusForbidden || decodeStatus(t, body).Reason != metav1.StatusReasonForbidden {
		t.Fatalf("non-admin user: status %d %s", resp.StatusCode, body)
	}
	if resp, _ := c.rawGet(t, "/api/v1/nodes", c.adminCert(t), ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("kubeconfig's client certificate: status %d", resp.StatusCode)
	}
	leaf, err := x509.ParseCertificate(c.adminCert(t).Certificate[0])
	if err != nil || leaf.Subject.CommonName != "kubernetes-admin" || !slices.Equal(leaf.Subject.Organization, []string{"kubeadm:cluster-admins"}) {
		t.Fatalf("admin certificate subject %v (%v), want kubeadm's admin.conf user", leaf.Subject, err)
	}
}

func TestKubeAPIUnknownPathIsNotFoundStatus(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	for _, path := range []string{"/apis/apps/v1", "/api/v2", "/api/v1/pods", "/api/v1/nodes/a/b", "/openapi/v3"} {
		resp, body := c.rawGet(t, path, c.adminCert(t), "")
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: status %d, content type %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if s := decodeStatus(t, body); s.Code != 404 || s.Reason != metav1.StatusReasonNotFound {
			t.Fatalf("%s: %+v", path, s)
		}
	}
}

func TestKubeAPIDiscovery(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	cert := c.adminCert(t)

	// kubectl first asks for aggregated discovery; a plain JSON answer makes
	// it fall back to the legacy documents.
	aggregated := "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
	resp, body := c.rawGet(t, "/api", cert, aggregated)
	var versions metav1.APIVersions
	if err := json.Unmarshal(body, &versions); err != nil || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("/api: %v, content type %q", err, resp.Header.Get("Content-Type"))
	}
	if versions.Kind != "APIVersions" || len(versions.Versions) != 1 || versions.Versions[0] != "v1" {
		t.Fatalf("/api = %s", body)
	}

	_, body = c.rawGet(t, "/apis", cert, aggregated)
	var groups metav1.APIGroupList
	if err := json.Unmarshal(body, &groups); err != nil || groups.Kind != "APIGroupList" || len(groups.Groups) != 0 {
		t.Fatalf("/apis = %s (%v)", body, err)
	}

	_, body = c.rawGet(t, "/api/v1", cert, "")
	var resources metav1.APIResourceList
	if err := json.Unmarshal(body, &resources); err != nil || resources.GroupVersion != "v1" {
		t.Fatalf("/api/v1 = %s (%v)", body, err)
	}
	if len(resources.APIResources) != 2 || resources.APIResources[0].Name != "namespaces" || resources.APIResources[1].Name != "nodes" ||
		resources.APIResources[0].Namespaced || resources.APIResources[1].Namespaced {
		t.Fatalf("/api/v1 resources = %+v", resources.APIResources)
	}

	_, body = c.rawGet(t, "/version", cert, "")
	var version struct{ Major, Minor, GitVersion string }
	if err := json.Unmarshal(body, &version); err != nil || version.GitVersion != "v1.33.13" || version.Minor != "33" {
		t.Fatalf("/version = %s (%v)", body, err)
	}
}

func TestKubeAPITable(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	accept := "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	_, body := c.rawGet(t, "/api/v1/nodes", c.adminCert(t), accept)
	var tbl metav1.Table
	if err := json.Unmarshal(body, &tbl); err != nil {
		t.Fatal(err)
	}
	if tbl.Kind != "Table" || tbl.APIVersion != "meta.k8s.io/v1" || len(tbl.Rows) != 3 {
		t.Fatalf("table = %s", body)
	}
	var names []string
	for _, col := range tbl.ColumnDefinitions {
		if col.Priority == 0 {
			names = append(names, col.Name)
		}
	}
	if strings.Join(names, ",") != "Name,Status,Roles,Age,Version" {
		t.Fatalf("default columns = %v", names)
	}
	cells := tbl.Rows[2].Cells
	if cells[0] != "test1-node-18fe761a001" || cells[1] != "NotReady" || cells[2] != "<none>" || cells[3] != "45s" {
		t.Fatalf("row 3 cells = %v", cells)
	}
	var meta metav1.PartialObjectMetadata
	if err := json.Unmarshal(tbl.Rows[0].Object.Raw, &meta); err != nil || meta.Name != "test1-control-18fe761907b" || meta.Kind != "PartialObjectMetadata" {
		t.Fatalf("row object = %s (%v)", tbl.Rows[0].Object.Raw, err)
	}

	// Without the Table media type the same path is a NodeList.
	_, body = c.rawGet(t, "/api/v1/nodes", c.adminCert(t), "application/json")
	var list corev1.NodeList
	if err := json.Unmarshal(body, &list); err != nil || list.Kind != "NodeList" || list.APIVersion != "v1" || len(list.Items) != 3 {
		t.Fatalf("list = %s (%v)", body, err)
	}
}

func TestKubeconfigForOddClusterNames(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	name := `Cluster!@#$%^&*()_+?.-01|<>: "quoted" #x`
	kubeconfig, err := c.m.Kubeconfig(c.id, name)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load([]byte(kubeconfig))
	if err != nil {
		t.Fatalf("clientcmd cannot load the kubeconfig: %v", err)
	}
	if cfg.CurrentContext != name || cfg.Contexts[name] == nil || cfg.Contexts[name].Cluster != name {
		t.Fatalf("contexts = %+v, current %q", cfg.Contexts, cfg.CurrentContext)
	}
	if server := cfg.Clusters[name].Server; server != "https://"+c.ip+":6443" {
		t.Fatalf("server = %q", server)
	}
	var list corev1.NodeList
	if err := c.restClient(t, name).Get().Resource("nodes").Do(t.Context()).Into(&list); err != nil || len(list.Items) != 3 {
		t.Fatalf("list through the odd-name kubeconfig: %v", err)
	}

	if _, err := c.m.Kubeconfig("unknown", "x"); err == nil {
		t.Fatal("Kubeconfig of an unknown cluster succeeded")
	}
	// A cluster known only through an SSH forward has no API endpoint yet.
	if err := c.m.OpenForward(c.ip, 2300, Target{ClusterID: "forward-only"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.m.Kubeconfig("forward-only", "x"); err == nil {
		t.Fatal("Kubeconfig of a cluster without API succeeded")
	}
}
