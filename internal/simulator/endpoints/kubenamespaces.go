package endpoints

import (
	"fmt"
	"net/http"
	"slices"
	"time"
)

// systemNamespaces are the namespaces kube-apiserver itself keeps in every
// cluster (its system namespaces controller), in name order. What CKS
// deploys after the control plane is up is not modelled.
var systemNamespaces = []string{"default", "kube-node-lease", "kube-public", "kube-system"}

type kubeNamespace struct {
	typeMeta
	Metadata objectMeta      `json:"metadata"`
	Spec     namespaceSpec   `json:"spec"`
	Status   namespaceStatus `json:"status"`
}

type namespaceSpec struct {
	Finalizers []string `json:"finalizers"`
}

type namespaceStatus struct {
	Phase string `json:"phase"`
}

type namespaceList struct {
	typeMeta
	Metadata listMeta        `json:"metadata"`
	Items    []kubeNamespace `json:"items"`
}

// toKubeNamespace renders a system namespace, created with the control
// plane.
func toKubeNamespace(clusterID, name string, created time.Time) kubeNamespace {
	return kubeNamespace{
		typeMeta: typeMeta{Kind: "Namespace", APIVersion: "v1"},
		Metadata: objectMeta{
			Name:              name,
			UID:               stableUUID(clusterID, "namespace", name),
			ResourceVersion:   nodeResourceVersion,
			CreationTimestamp: rfc3339(created),
			// Set by the API server on every namespace since 1.21.
			Labels: map[string]string{"kubernetes.io/metadata.name": name},
		},
		Spec:   namespaceSpec{Finalizers: []string{"kubernetes"}},
		Status: namespaceStatus{Phase: "Active"},
	}
}

// serveNamespaces answers a list (name == "") or a get of the system
// namespaces, which exist as long as the API server answers.
func (h *kubeAPI) serveNamespaces(w http.ResponseWriter, r *http.Request, name string) {
	q := r.URL.Query()
	if q.Get("watch") == "true" || q.Get("watch") == "1" {
		writeStatus(w, r, http.StatusMethodNotAllowed, "the simulated API server does not support watch", nil)
		return
	}
	nodes, ok := h.nodes(w, r)
	if !ok {
		return
	}
	created := h.m.clock()
	for _, n := range nodes {
		if n.Created.Before(created) {
			created = n.Created
		}
	}
	if name != "" {
		if !slices.Contains(systemNamespaces, name) {
			writeStatus(w, r, http.StatusNotFound, fmt.Sprintf("namespaces %q not found", name), &statusDetails{Name: name, Kind: "namespaces"})
			return
		}
		writeJSON(w, r, http.StatusOK, toKubeNamespace(h.clusterID, name, created))
		return
	}
	sel, err := parseSelectors(q.Get("labelSelector"), q.Get("fieldSelector"))
	if err != nil {
		writeStatus(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	items := []kubeNamespace{}
	for _, ns := range systemNamespaces {
		if item := toKubeNamespace(h.clusterID, ns, created); sel.matches(item.Metadata) {
			items = append(items, item)
		}
	}
	writeJSON(w, r, http.StatusOK, namespaceList{
		typeMeta: typeMeta{Kind: "NamespaceList", APIVersion: "v1"},
		Metadata: listMeta{ResourceVersion: nodeResourceVersion},
		Items:    items,
	})
}
