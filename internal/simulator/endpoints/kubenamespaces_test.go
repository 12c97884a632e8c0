package endpoints

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// The system namespaces every API server keeps, as client-go decodes them,
// created with the oldest node.
func TestClientGoReadsNamespaces(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	rc := c.restClient(t, "test1")
	ctx := t.Context()

	var list corev1.NamespaceList
	if err := rc.Get().Resource("namespaces").Do(ctx).Into(&list); err != nil {
		t.Fatalf("list namespaces: %v", err)
	}
	var names []string
	for _, ns := range list.Items {
		names = append(names, ns.Name)
		if ns.Status.Phase != corev1.NamespaceActive || ns.UID == "" || ns.Labels["kubernetes.io/metadata.name"] != ns.Name ||
			ns.CreationTimestamp.Unix() != testNow.Unix()-48*3600 {
			t.Errorf("namespace %s: %+v", ns.Name, ns)
		}
	}
	if got := len(names); got != 4 || names[0] != "default" || names[3] != "kube-system" {
		t.Fatalf("namespaces %v", names)
	}

	var one corev1.Namespace
	if err := rc.Get().Resource("namespaces").Name("kube-system").Do(ctx).Into(&one); err != nil || one.UID != list.Items[3].UID {
		t.Fatalf("get kube-system: %+v, %v", one.ObjectMeta, err)
	}
	if err := rc.Get().Resource("namespaces").Name("missing").Do(ctx).Error(); !apierrors.IsNotFound(err) {
		t.Fatalf("get a missing namespace: %v, want NotFound", err)
	}
	var selected corev1.NamespaceList
	if err := rc.Get().Resource("namespaces").Param("labelSelector", "kubernetes.io/metadata.name=kube-public").Do(ctx).Into(&selected); err != nil ||
		len(selected.Items) != 1 || selected.Items[0].Name != "kube-public" {
		t.Fatalf("label selector: %+v, %v", selected.Items, err)
	}
}
