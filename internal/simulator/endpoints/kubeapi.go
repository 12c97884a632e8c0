package endpoints

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"
)

// kubeAPIPort is CLUSTER_API_PORT.
const kubeAPIPort = "6443"

// apiServer is a cluster's Kubernetes API listener.
type apiServer struct {
	ip     string
	addr   string
	srv    *http.Server
	served chan struct{} // closed when Serve returned
}

// startAPI listens on ip:6443 with a certificate for ip. The caller holds m.mu.
func (m *Manager) startAPI(clusterID, ip string, creds *credentials) (*apiServer, error) {
	cert, err := creds.servingCert(ip)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", clusterID, err)
	}
	addr := net.JoinHostPort(ip, kubeAPIPort)
	ln, err := listenRetrying(addr)
	if err != nil {
		return nil, fmt.Errorf("start Kubernetes API: %w", err)
	}
	handler := &kubeAPI{m: m, clusterID: clusterID, creds: creds, addr: addr}
	a := &apiServer{
		ip:   ip,
		addr: addr,
		srv: &http.Server{
			Handler:           handler,
			ReadHeaderTimeout: 10 * time.Second,
			// kube-apiserver requests a client certificate and verifies it
			// in its authenticator, so a missing or foreign one is a 401.
			TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12,
				ClientAuth: tls.RequestClientCert},
			// Probes and aborted clients cause TLS handshake errors; they are not news.
			ErrorLog: log.New(io.Discard, "", 0),
		},
		served: make(chan struct{}),
	}
	m.goroutine(func() {
		defer close(a.served)
		_ = a.srv.ServeTLS(ln, "", "")
	})
	return a, nil
}

// stop closes the listener and every connection. Handlers still running
// finish on their own; see Manager for why nothing waits for them.
func (a *apiServer) stop() {
	_ = a.srv.Close()
	<-a.served
}

// kubeAPI serves one cluster's Kubernetes API.
type kubeAPI struct {
	m         *Manager
	clusterID string
	creds     *credentials
	addr      string
}

func (h *kubeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if code := h.m.faults.takeKubeFailure(); code != 0 {
		writeStatus(w, r, code, "simulated failure: "+strings.ToLower(http.StatusText(code)), nil)
		return
	}
	user, groups, ok := h.creds.authenticate(r.TLS)
	if !ok {
		writeStatus(w, r, http.StatusUnauthorized, "Unauthorized", nil)
		return
	}
	if !slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(clusterAdminGroups, g) }) {
		writeStatus(w, r, http.StatusForbidden, fmt.Sprintf("forbidden: User %q cannot get path %q", user, r.URL.Path), nil)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeStatus(w, r, http.StatusMethodNotAllowed, "the simulated API server is read-only", nil)
		return
	}

	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/healthz" || path == "/livez" || path == "/readyz":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok")
	case path == "/version":
		h.serveVersion(w, r)
	case path == "/api":
		writeJSON(w, r, http.StatusOK, apiVersions{
			typeMeta:                   typeMeta{Kind: "APIVersions"},
			Versions:                   []string{"v1"},
			ServerAddressByClientCIDRs: []serverAddress{{ClientCIDR: "0.0.0.0/0", ServerAddress: h.addr}},
		})
	case path == "/apis":
		writeJSON(w, r, http.StatusOK, apiGroupList{typeMeta: typeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []any{}})
	case path == "/api/v1":
		writeJSON(w, r, http.StatusOK, apiResourceList{
			typeMeta:     typeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: "v1",
			Resources: []apiResource{{
				Name: "namespaces", SingularName: "namespace", Kind: "Namespace",
				Verbs: []string{"get", "list"}, ShortNames: []string{"ns"},
			}, {
				Name: "nodes", SingularName: "node", Kind: "Node",
				Verbs: []string{"get", "list"}, ShortNames: []string{"no"},
			}},
		})
	case path == "/api/v1/namespaces":
		h.serveNamespaces(w, r, "")
	case strings.HasPrefix(path, "/api/v1/namespaces/") && !strings.Contains(path[len("/api/v1/namespaces/"):], "/"):
		h.serveNamespaces(w, r, path[len("/api/v1/namespaces/"):])
	case path == "/api/v1/nodes":
		h.serveNodes(w, r, "")
	case strings.HasPrefix(path, "/api/v1/nodes/") && !strings.Contains(path[len("/api/v1/nodes/"):], "/"):
		h.serveNodes(w, r, path[len("/api/v1/nodes/"):])
	default:
		writeStatus(w, r, http.StatusNotFound, "the server could not find the requested resource", nil)
	}
}

// nodes returns the cluster's nodes in name order, or writes the error the
// API server gives when it cannot reach its backend.
func (h *kubeAPI) nodes(w http.ResponseWriter, r *http.Request) ([]Node, bool) {
	nodes, ok := h.m.src.KubeNodes(h.clusterID)
	if !ok {
		writeStatus(w, r, http.StatusServiceUnavailable, "the server is currently unable to handle the request", nil)
		return nil, false
	}
	return sortedNodes(nodes), true
}

func (h *kubeAPI) serveVersion(w http.ResponseWriter, r *http.Request) {
	nodes, ok := h.nodes(w, r)
	if !ok {
		return
	}
	writeJSON(w, r, http.StatusOK, serverVersion(nodes))
}

// serverVersion reports the control plane's kubelet version, as
// kube-apiserver reports its own; without one it reports any node's.
func serverVersion(nodes []Node) versionInfo {
	version := "v1.33.0"
	if i := slices.IndexFunc(nodes, func(n Node) bool { return n.Control && n.Version != "" }); i >= 0 {
		version = nodes[i].Version
	} else if i := slices.IndexFunc(nodes, func(n Node) bool { return n.Version != "" }); i >= 0 {
		version = nodes[i].Version
	}
	major, minor := "1", "33"
	if parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3); len(parts) >= 2 {
		major, minor = parts[0], parts[1]
	}
	return versionInfo{
		Major: major, Minor: minor, GitVersion: version,
		GitCommit: "0000000000000000000000000000000000000000", GitTreeState: "clean",
		BuildDate: "2025-01-01T00:00:00Z", GoVersion: "go1.24.0", Compiler: "gc", Platform: "linux/amd64",
	}
}

// serveNodes answers a list (name == "") or a get, as a NodeList/Node or,
// when the client asks for it, as a meta.k8s.io Table.
func (h *kubeAPI) serveNodes(w http.ResponseWriter, r *http.Request, name string) {
	q := r.URL.Query()
	if q.Get("watch") == "true" || q.Get("watch") == "1" {
		writeStatus(w, r, http.StatusMethodNotAllowed, "the simulated API server does not support watch", nil)
		return
	}
	all, ok := h.nodes(w, r)
	if !ok {
		return
	}
	now := h.m.clock()
	var nodes []Node
	if name != "" {
		n, found := findNode(all, name)
		if !found {
			writeStatus(w, r, http.StatusNotFound, fmt.Sprintf("nodes %q not found", name), &statusDetails{Name: name, Kind: "nodes"})
			return
		}
		nodes = []Node{n}
	} else {
		sel, err := parseSelectors(q.Get("labelSelector"), q.Get("fieldSelector"))
		if err != nil {
			writeStatus(w, r, http.StatusBadRequest, err.Error(), nil)
			return
		}
		for _, n := range all {
			if sel.matches(toKubeNode(h.clusterID, n, now).Metadata) {
				nodes = append(nodes, n)
			}
		}
	}

	if tableVersion, wantsTable := requestedTable(r.Header.Get("Accept")); wantsTable {
		writeJSON(w, r, http.StatusOK, h.nodeTable(nodes, now, tableVersion, q.Get("includeObject")))
		return
	}
	if name != "" {
		writeJSON(w, r, http.StatusOK, toKubeNode(h.clusterID, nodes[0], now))
		return
	}
	items := make([]kubeNode, 0, len(nodes))
	for _, n := range nodes {
		items = append(items, toKubeNode(h.clusterID, n, now))
	}
	writeJSON(w, r, http.StatusOK, nodeList{
		typeMeta: typeMeta{Kind: "NodeList", APIVersion: "v1"},
		Metadata: listMeta{ResourceVersion: nodeResourceVersion},
		Items:    items,
	})
}

// nodeTableColumns are the server-side printer columns for nodes.
var nodeTableColumns = []tableColumn{
	{Name: "Name", Type: "string", Format: "name", Description: "Name must be unique within a namespace."},
	{Name: "Status", Type: "string", Description: "The status of the node"},
	{Name: "Roles", Type: "string", Description: "The roles of the node"},
	{Name: "Age", Type: "string", Description: "CreationTimestamp is a timestamp representing the server time when this object was created."},
	{Name: "Version", Type: "string", Description: "Kubelet Version reported by the node."},
	{Name: "Internal-IP", Type: "string", Priority: 1, Description: "List of internal IPs for the node."},
	{Name: "External-IP", Type: "string", Priority: 1, Description: "List of external IPs for the node."},
	{Name: "OS-Image", Type: "string", Priority: 1, Description: "OS image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."},
	{Name: "Kernel-Version", Type: "string", Priority: 1, Description: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."},
	{Name: "Container-Runtime", Type: "string", Priority: 1, Description: "Container runtime version reported by the node through runtime remote API (e.g. containerd://1.4.2)."},
}

func (h *kubeAPI) nodeTable(nodes []Node, now time.Time, version, includeObject string) table {
	rows := make([]tableRow, 0, len(nodes))
	for _, n := range nodes {
		cells := nodeCells(n, now)
		row := tableRow{Cells: make([]any, len(cells))}
		for i, c := range cells {
			row.Cells[i] = c
		}
		kn := toKubeNode(h.clusterID, n, now)
		switch includeObject {
		case "None":
		case "Object":
			row.Object = kn
		default:
			row.Object = partialObjectMetadata{
				typeMeta: typeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/" + version},
				Metadata: kn.Metadata,
			}
		}
		rows = append(rows, row)
	}
	return table{
		typeMeta:          typeMeta{Kind: "Table", APIVersion: "meta.k8s.io/" + version},
		Metadata:          listMeta{ResourceVersion: nodeResourceVersion},
		ColumnDefinitions: nodeTableColumns,
		Rows:              rows,
	}
}

// requestedTable reports whether an Accept header asks for a Table (kubectl's
// "application/json;as=Table;v=v1;g=meta.k8s.io") and in which version.
func requestedTable(accept string) (version string, ok bool) {
	for _, mediaType := range strings.Split(accept, ",") {
		params := map[string]string{}
		for _, p := range strings.Split(mediaType, ";")[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			params[k] = v
		}
		if params["as"] != "Table" || (params["g"] != "" && params["g"] != "meta.k8s.io") {
			continue
		}
		switch params["v"] {
		case "", "v1":
			return "v1", true
		case "v1beta1":
			return "v1beta1", true
		}
	}
	return "", false
}

// statusReasons are the StatusReason values the API server uses per code.
var statusReasons = map[int]string{
	http.StatusBadRequest:          "BadRequest",
	http.StatusUnauthorized:        "Unauthorized",
	http.StatusForbidden:           "Forbidden",
	http.StatusNotFound:            "NotFound",
	http.StatusMethodNotAllowed:    "MethodNotAllowed",
	http.StatusConflict:            "Conflict",
	http.StatusGone:                "Expired",
	http.StatusUnprocessableEntity: "Invalid",
	http.StatusTooManyRequests:     "TooManyRequests",
	http.StatusInternalServerError: "InternalError",
	http.StatusServiceUnavailable:  "ServiceUnavailable",
	http.StatusGatewayTimeout:      "Timeout",
}

func writeStatus(w http.ResponseWriter, r *http.Request, code int, message string, details *statusDetails) {
	s := status{
		typeMeta: typeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   "Failure",
		Message:  message,
		Reason:   statusReasons[code],
		Details:  details,
		Code:     code,
	}
	if code < 400 {
		s.Status = "Success"
	}
	writeJSON(w, r, code, s)
}

func writeJSON(w http.ResponseWriter, r *http.Request, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encode response", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(append(body, '\n'))
	}
}
