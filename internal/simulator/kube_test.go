package simulator

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"gopkg.in/yaml.v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// kubeconfigOf fetches a cluster's kubeconfig through getKubernetesClusterConfig.
func kubeconfigOf(e *testEnv, id string) string {
	e.t.Helper()
	p := e.cs.Kubernetes.NewGetKubernetesClusterConfigParams()
	p.SetId(id)
	r, err := e.cs.Kubernetes.GetKubernetesClusterConfig(p)
	if err != nil {
		e.t.Fatalf("getKubernetesClusterConfig: %v", err)
	}
	return r.Configdata
}

// runKubectl runs the real kubectl, found on PATH, with the kubeconfig; the
// test skips where there is none.
func runKubectl(t *testing.T, kubeconfig string, args ...string) (string, error) {
	t.Helper()
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skipf("this test runs the real kubectl against the simulated API, and none is on PATH: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(kubectl, append([]string{"--kubeconfig", path, "--request-timeout", "20s"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECACHEDIR="+filepath.Join(dir, "cache"))
	out, err := cmd.Output()
	return string(out), err
}

func TestRealKubectlGetNodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	id := e.createCluster(e.createParams("kubectl", 1))
	cfg := kubeconfigOf(e, id)
	out, err := runKubectl(t, cfg, "get", "nodes", "-o", "name")
	if err != nil {
		t.Fatalf("kubectl get nodes -o name: %v %s", err, out)
	}
	var want []string
	for _, n := range e.sim.DumpState().Nodes {
		want = append(want, "node/"+n.Name)
	}
	got := strings.Fields(out)
	slices.Sort(got)
	if !slices.Equal(got, want) || len(got) != 2 {
		t.Fatalf("kubectl nodes %v, want %v", got, want)
	}
	table, err := runKubectl(t, cfg, "get", "nodes")
	if err != nil || !strings.Contains(table, "control-plane") || strings.Count(table, " Ready ") != 2 {
		t.Fatalf("kubectl get nodes table: %v\n%s", err, table)
	}
}

// kubeAPI is a minimal client built from a kubeconfig: server, CA and the
// user's client certificate (kubeadm's admin.conf has no token).
type kubeAPI struct {
	server string
	client *http.Client
}

func newKubeAPI(t *testing.T, kubeconfig string) *kubeAPI {
	t.Helper()
	var cfg struct {
		Clusters []struct {
			Cluster struct {
				Server string `yaml:"server"`
				CAData string `yaml:"certificate-authority-data"`
			} `yaml:"cluster"`
		} `yaml:"clusters"`
		Users []struct {
			User struct {
				Token    string `yaml:"token"`
				CertData string `yaml:"client-certificate-data"`
				KeyData  string `yaml:"client-key-data"`
			} `yaml:"user"`
		} `yaml:"users"`
	}
	if err := yaml.Unmarshal([]byte(kubeconfig), &cfg); err != nil || len(cfg.Clusters) != 1 || len(cfg.Users) != 1 {
		t.Fatalf("kubeconfig: %v", err)
	}
	decode := func(v string) []byte {
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	user := cfg.Users[0].User
	if user.Token != "" {
		t.Fatal("the admin kubeconfig carries a token; kubeadm's admin.conf uses a client certificate")
	}
	cert, err := tls.X509KeyPair(decode(user.CertData), decode(user.KeyData))
	if err != nil {
		t.Fatalf("client certificate: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(decode(cfg.Clusters[0].Cluster.CAData)) {
		t.Fatal("bad CA in kubeconfig")
	}
	return &kubeAPI{server: cfg.Clusters[0].Cluster.Server,
		client: &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
			RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}}}
}

// nodes GETs /api/v1/nodes and returns name -> Ready, or the HTTP status.
func (k *kubeAPI) nodes(t *testing.T) (map[string]bool, int) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, k.server+"/api/v1/nodes", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		t.Fatalf("GET /api/v1/nodes: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, resp.StatusCode
	}
	var list struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Status struct {
				Conditions []struct {
					Type, Status string
				} `json:"conditions"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, it := range list.Items {
		ready := false
		for _, c := range it.Status.Conditions {
			if c.Type == "Ready" && c.Status == "True" {
				ready = true
			}
		}
		out[it.Metadata.Name] = ready
	}
	return out, http.StatusOK
}

// sshTry runs a command over SSH and returns its output or error.
func sshTry(e *testEnv, clusterID, host string, port int, cmd string) (string, error) {
	signer, err := ssh.ParsePrivateKey(e.sim.PrivateKeyPEM())
	if err != nil {
		return "", err
	}
	cfg := &ssh.ClientConfig{User: "cloud", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.FixedHostKey(e.sim.HostKey(clusterID)), Timeout: 10 * time.Second}
	client, err := ssh.Dial("tcp", net.JoinHostPort(host, strconv.Itoa(port)), cfg)
	if err != nil {
		return "", err
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		return "", err
	}
	defer sess.Close()
	out, err := sess.Output(cmd)
	return string(out), err
}

// TestAdminKubeconfigUsesClientCertificate: getKubernetesClusterConfig
// returns kubeadm's admin.conf shape (client certificate and key, no
// token) and client-go lists the nodes with it over mutual TLS.
func TestAdminKubeconfigUsesClientCertificate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.createCluster(e.createParams("mtls", 2))
	kubeconfig := kubeconfigOf(e, id)
	cfg, err := clientcmd.Load([]byte(kubeconfig))
	if err != nil {
		t.Fatal(err)
	}
	user := cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo]
	if user == nil || user.Token != "" || len(user.ClientCertificateData) == 0 || len(user.ClientKeyData) == 0 {
		t.Fatalf("kubeconfig user %+v: want a client certificate and key, no token", user)
	}
	rc, err := clientcmd.RESTConfigFromKubeConfig([]byte(kubeconfig))
	if err != nil {
		t.Fatal(err)
	}
	client := func(cfg *rest.Config) *rest.RESTClient {
		scheme := runtime.NewScheme()
		if err := corev1.AddToScheme(scheme); err != nil {
			t.Fatal(err)
		}
		cfg.APIPath = "/api"
		cfg.GroupVersion = &schema.GroupVersion{Version: "v1"}
		cfg.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
		c, err := rest.RESTClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	var nodes corev1.NodeList
	if err := client(rest.CopyConfig(rc)).Get().Resource("nodes").Do(t.Context()).Into(&nodes); err != nil || len(nodes.Items) != 3 {
		t.Fatalf("client-go list nodes: %v (%d nodes)", err, len(nodes.Items))
	}
	// Without the certificate the API answers 401.
	anonymous := rest.CopyConfig(rc)
	anonymous.CertData, anonymous.KeyData = nil, nil
	if err := client(anonymous).Get().Resource("nodes").Do(t.Context()).Error(); !apierrors.IsUnauthorized(err) {
		t.Fatalf("without the client certificate: %v, want 401", err)
	}
}

// TestStoppedKubeletLeavesNodeNotReadyUntilDeleted: the node of a VM whose
// kubelet stopped stays registered, NotReady; the scale-down drain deletes
// it with the VM.
func TestStoppedKubeletLeavesNodeNotReadyUntilDeleted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.createCluster(e.createParams("notready", 2))
	workers := workerIDs(e, id)
	if err := e.sim.StopKubelet(workers[1], false); err != nil {
		t.Fatal(err)
	}
	api := newKubeAPI(t, kubeconfigOf(e, id))
	nodes, status := api.nodes(t)
	name := strings.ToLower(e.cluster(id).Virtualmachines[2].Name)
	if status != 200 || len(nodes) != 3 || nodes[name] {
		t.Fatalf("nodes %v (%d): want %s registered and NotReady", nodes, status, name)
	}
	e.mustSucceed(e.scale(id, 1)) // removes the newest worker, the one stopped
	if nodes, _ := api.nodes(t); len(nodes) != 2 {
		t.Fatalf("nodes after the scale-down %v: the drain deletes the node", nodes)
	}
}
