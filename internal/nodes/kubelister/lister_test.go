package kubelister_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/kubelister"
)

const controlRole = "node-role.kubernetes.io/control-plane"

func mustNew(t *testing.T, kubeconfig []byte, opts kubelister.Options) *kubelister.Lister {
	t.Helper()
	l, err := kubelister.New(kubeconfig, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return l
}

// assertNoSecrets checks that an error leaks neither the token nor the kubeconfig's CA data.
func assertNoSecrets(t *testing.T, err error, kubeconfig []byte) {
	t.Helper()
	if strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), testToken[:7]) {
		t.Fatalf("error leaks the token: %v", err)
	}
	for _, line := range strings.Split(string(kubeconfig), "\n") {
		if _, value, ok := strings.Cut(line, "-data: "); ok && strings.Contains(err.Error(), value[:16]) {
			t.Fatalf("error leaks kubeconfig data: %v", err)
		}
	}
}

func TestListNodes(t *testing.T) {
	t.Parallel()
	a := newAPIServer(t,
		node("cks-control-1", corev1.ConditionTrue, "v1.33.13", map[string]string{controlRole: "", "kubernetes.io/os": "linux"}),
		node("cks-node-1", corev1.ConditionFalse, "v1.33.13", nil),
		node("cks-node-2", corev1.ConditionUnknown, "v1.33.12", map[string]string{"kubernetes.io/role": "worker"}),
		node("cks-node-3.example.org", "", "v1.33.13", map[string]string{"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/ingress": "true", "node-role.kubernetes.io/": "x"}),
	)
	l := mustNew(t, a.kubeconfig(testToken), kubelister.Options{})

	got, err := l.ListNodes(t.Context())
	if err != nil {
		t.Fatalf("ListNodes: %v", err)
	}
	want := []nodes.Node{
		{Name: "cks-control-1", Ready: true, Roles: "control-plane", Version: "v1.33.13"},
		{Name: "cks-node-1", Ready: false, Roles: "<none>", Version: "v1.33.13"},
		{Name: "cks-node-2", Ready: false, Roles: "worker", Version: "v1.33.12"},
		{Name: "cks-node-3.example.org", Ready: false, Roles: "ingress,worker", Version: "v1.33.13"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ListNodes =\n%#v\nwant\n%#v", got, want)
	}

	reqs := a.recordedRequests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.URL.Path != "/api/v1/nodes" || r.URL.Query().Get("limit") != "500" || !strings.Contains(r.Header.Get("Accept"), "application/json") {
		t.Fatalf("request = %s %s Accept=%q", r.Method, r.URL, r.Header.Get("Accept"))
	}
	if l.Server() != a.srv.URL {
		t.Fatalf("Server = %q, want %q", l.Server(), a.srv.URL)
	}
}

func TestListNodesFollowsPages(t *testing.T) {
	t.Parallel()
	var all []corev1.Node
	var want []nodes.Node
	for _, name := range []string{"n-1", "n-2", "n-3", "n-4", "n-5"} {
		all = append(all, node(name, corev1.ConditionTrue, "v1.32.0", nil))
		want = append(want, nodes.Node{Name: name, Ready: true, Roles: "<none>", Version: "v1.32.0"})
	}
	a := newAPIServer(t, all...)
	a.pageSize = 2

	got, err := mustNew(t, a.kubeconfig(testToken), kubelister.Options{}).ListNodes(t.Context())
	if err != nil {
		t.Fatalf("ListNodes: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ListNodes = %#v, want %#v", got, want)
	}
	var continues []string
	for _, r := range a.recordedRequests() {
		continues = append(continues, r.URL.Query().Get("continue"))
	}
	if !reflect.DeepEqual(continues, []string{"", "2", "4"}) {
		t.Fatalf("continue tokens sent = %q", continues)
	}
}

func TestListNodesEmptyCluster(t *testing.T) {
	t.Parallel()
	a := newAPIServer(t)
	got, err := mustNew(t, a.kubeconfig(testToken), kubelister.Options{}).ListNodes(t.Context())
	if err != nil || len(got) != 0 {
		t.Fatalf("ListNodes = %#v, %v; want no nodes", got, err)
	}
}

func TestListNodesHTTPErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		token   string
		respond func(w http.ResponseWriter, r *http.Request) bool
		code    int32
		want    string
	}{
		"500 with a plain body": {
			token: testToken,
			code:  http.StatusInternalServerError,
			respond: func(w http.ResponseWriter, _ *http.Request) bool {
				http.Error(w, "etcdserver: leader changed", http.StatusInternalServerError)
				return true
			},
			want: "listing nodes: HTTP 500 Internal Server Error: an error on the server (\"etcdserver: leader changed\")",
		},
		"500 with a Status body": {
			token: testToken,
			code:  http.StatusInternalServerError,
			respond: func(w http.ResponseWriter, _ *http.Request) bool {
				writeStatus(w, http.StatusInternalServerError, "etcd cluster is unavailable")
				return true
			},
			want: "listing nodes: HTTP 500 Internal Server Error: etcd cluster is unavailable",
		},
		"401 for a wrong token": {
			token: "wrong-token-but-long-enough",
			code:  http.StatusUnauthorized,
			want:  "listing nodes: HTTP 401 Unauthorized (the kubeconfig's credentials were rejected)",
		},
		"403": {
			token: testToken,
			code:  http.StatusForbidden,
			respond: func(w http.ResponseWriter, _ *http.Request) bool {
				writeStatus(w, http.StatusForbidden, `nodes is forbidden: User "system:serviceaccount:x" cannot list resource "nodes"`)
				return true
			},
			want: "listing nodes: HTTP 403 Forbidden (the kubeconfig's user may not list nodes): nodes is forbidden",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := newAPIServer(t, node("n-1", corev1.ConditionTrue, "v1.32.0", nil))
			a.respond = tc.respond
			kubeconfig := a.kubeconfig(tc.token)

			got, err := mustNew(t, kubeconfig, kubelister.Options{}).ListNodes(t.Context())
			if err == nil {
				t.Fatalf("ListNodes = %#v, want an error", got)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "kubernetes API "+a.srv.URL+": ") {
				t.Fatalf("error = %q, want it to contain %q", err, tc.want)
			}
			assertNoSecrets(t, err, kubeconfig)
			var status apierrors.APIStatus
			if !errors.As(err, &status) || status.Status().Code != tc.code {
				t.Fatalf("error %v does not carry API status %d", err, tc.code)
			}
			if n := len(a.recordedRequests()); n != 1 {
				t.Fatalf("server saw %d requests, want exactly 1 (no silent retries)", n)
			}
		})
	}
}

func TestListNodesUntrustedServerCertificate(t *testing.T) {
	t.Parallel()
	a := newAPIServer(t)
	// Without the CA data only the system roots apply, and they do not sign httptest's certificate.
	kubeconfig := []byte(strings.Replace(string(a.kubeconfig(testToken)), "certificate-authority-data:", "x-unused-data:", 1))

	_, err := mustNew(t, kubeconfig, kubelister.Options{}).ListNodes(t.Context())
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("ListNodes error = %v, want a certificate verification failure", err)
	}
	assertNoSecrets(t, err, kubeconfig)
	if n := len(a.recordedRequests()); n != 0 {
		t.Fatalf("server handled %d requests over an unverified connection", n)
	}
}

func TestListNodesContextCancel(t *testing.T) {
	t.Parallel()
	a := newAPIServer(t)
	arrived := make(chan struct{}, 8)
	a.arrived = arrived
	a.respond = waitForClientToLeave
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()

	_, err := mustNew(t, a.kubeconfig(testToken), kubelister.Options{}).ListNodes(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("ListNodes error = %v, want context.Canceled", err)
	}
}

func TestListNodesTimeout(t *testing.T) {
	t.Parallel()
	a := newAPIServer(t)
	a.respond = waitForClientToLeave

	_, err := mustNew(t, a.kubeconfig(testToken), kubelister.Options{Timeout: 50 * time.Millisecond}).ListNodes(t.Context())
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "listing nodes: no answer within 50ms") {
		t.Fatalf("ListNodes error = %v, want a client timeout", err)
	}
}
