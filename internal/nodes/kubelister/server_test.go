package kubelister_test

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const testToken = "s3cr3t-bearer-token-0123456789abcdef"

// apiServer is a minimal Kubernetes API: bearer-token auth and GET /api/v1/nodes
// with optional server-side paging, on a random 127.A.B.C loopback address.
type apiServer struct {
	srv *httptest.Server

	mu       sync.Mutex
	nodes    []corev1.Node
	pageSize int                                                         // 0 serves everything at once
	respond  func(w http.ResponseWriter, r *http.Request) (handled bool) // overrides the normal answer
	requests []*http.Request
	arrived  chan struct{} // receives one value per request when non-nil
}

func newAPIServer(t *testing.T, nodes ...corev1.Node) *apiServer {
	t.Helper()
	a := &apiServer{nodes: nodes}
	a.srv = httptest.NewUnstartedServer(http.HandlerFunc(a.serve))
	// Rejected handshakes are expected in some tests; keep them out of the test output.
	a.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	_ = a.srv.Listener.Close()
	a.srv.Listener = testutil.ListenLoopback(t)
	a.srv.StartTLS()
	t.Cleanup(a.srv.Close)
	return a
}

func (a *apiServer) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.requests = append(a.requests, r.Clone(r.Context()))
	respond, arrived := a.respond, a.arrived
	a.mu.Unlock()
	if arrived != nil {
		arrived <- struct{}{}
	}

	if r.Header.Get("Authorization") != "Bearer "+testToken {
		writeStatus(w, http.StatusUnauthorized, "Unauthorized")
		return
	}
	if respond != nil && respond(w, r) {
		return
	}
	if r.Method != http.MethodGet || r.URL.Path != "/api/v1/nodes" {
		writeStatus(w, http.StatusNotFound, "the server could not find the requested resource")
		return
	}
	a.writeNodes(w, r)
}

func (a *apiServer) writeNodes(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	start := 0
	if c := r.URL.Query().Get("continue"); c != "" {
		start, _ = strconv.Atoi(c)
	}
	end := len(a.nodes)
	if a.pageSize > 0 {
		end = min(start+a.pageSize, len(a.nodes))
	}
	list := corev1.NodeList{
		TypeMeta: metav1.TypeMeta{Kind: "NodeList", APIVersion: "v1"},
		ListMeta: metav1.ListMeta{ResourceVersion: "42"},
		Items:    a.nodes[start:end],
	}
	if end < len(a.nodes) {
		list.Continue = strconv.Itoa(end)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

// waitForClientToLeave holds a request until the client cancels or times out.
func waitForClientToLeave(_ http.ResponseWriter, r *http.Request) bool {
	<-r.Context().Done()
	return true
}

func writeStatus(w http.ResponseWriter, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  message,
		Code:     int32(code),
	})
}

func (a *apiServer) recordedRequests() []*http.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*http.Request(nil), a.requests...)
}

// kubeconfig returns a kubeconfig for the server, trusting its certificate.
// The httptest certificate names example.com, hence tls-server-name.
func (a *apiServer) kubeconfig(token string) []byte {
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: a.srv.Certificate().Raw})
	return fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: cks
  cluster:
    server: %s
    tls-server-name: example.com
    certificate-authority-data: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: cks-admin
  context:
    cluster: cks
    user: admin
current-context: cks-admin
`, a.srv.URL, base64.StdEncoding.EncodeToString(caPEM), token)
}

func node(name string, ready corev1.ConditionStatus, version string, labels map[string]string) corev1.Node {
	n := corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status:     corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: version}},
	}
	if ready != "" {
		n.Status.Conditions = []corev1.NodeCondition{
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse},
			{Type: corev1.NodeReady, Status: ready},
		}
	}
	return n
}
