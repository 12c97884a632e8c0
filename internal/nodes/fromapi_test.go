package nodes

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestRoles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		labels map[string]string
		want   string
	}{
		{labels: nil, want: "<none>"},
		{labels: map[string]string{"kubernetes.io/os": "linux"}, want: "<none>"},
		{labels: map[string]string{"node-role.kubernetes.io/control-plane": ""}, want: "control-plane"},
		{labels: map[string]string{"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/control-plane": "true"}, want: "control-plane,worker"},
		{labels: map[string]string{"kubernetes.io/role": "master", "node-role.kubernetes.io/master": ""}, want: "master"},
		{labels: map[string]string{"kubernetes.io/role": "", "node-role.kubernetes.io/": ""}, want: "<none>"},
	}
	for _, tt := range tests {
		if got := roles(tt.labels); got != tt.want {
			t.Errorf("roles(%v) = %q, want %q", tt.labels, got, tt.want)
		}
	}
}

func TestFromAPIReadiness(t *testing.T) {
	t.Parallel()
	node := func(conditions ...corev1.NodeCondition) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "w-1", Labels: map[string]string{"node-role.kubernetes.io/worker": ""}},
			Status: corev1.NodeStatus{
				Conditions: conditions,
				NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.33.13"},
			},
		}
	}
	pressure := corev1.NodeCondition{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionTrue}
	tests := map[string]struct {
		node *corev1.Node
		want bool
	}{
		"Ready True":                      {node(pressure, corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue}), true},
		"Ready False":                     {node(corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse}), false},
		"Ready Unknown (kubelet stopped)": {node(corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}), false},
		"no Ready condition":              {node(pressure), false},
		"no conditions at all (new node)": {node(), false},
	}
	for name, tt := range tests {
		got := FromAPI(tt.node)
		want := Node{Name: "w-1", Ready: tt.want, Roles: "worker", Version: "v1.33.13"}
		if got != want {
			t.Errorf("%s: FromAPI = %+v, want %+v", name, got, want)
		}
	}
}
