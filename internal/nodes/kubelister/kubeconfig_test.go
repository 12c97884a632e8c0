package kubelister_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/kubelister"
)

func TestNewRejectsUnusableKubeconfig(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		kubeconfig string
		opts       kubelister.Options
		want       string
	}{
		"empty": {kubeconfig: "", want: "kubeconfig is empty"},
		"not yaml": {
			kubeconfig: "users: [token: " + testToken + "\n  : : :",
			want:       "kubeconfig is not usable",
		},
		"token of the wrong type": {
			kubeconfig: "apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token:\n      nested: " + testToken + "\n",
			want:       "kubeconfig is not usable",
		},
		"no current context": {
			kubeconfig: "apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: " + testToken + "\n",
			want:       "kubeconfig is not usable",
		},
		"negative timeout": {
			kubeconfig: "apiVersion: v1\nkind: Config\n",
			opts:       kubelister.Options{Timeout: -time.Second},
			want:       "Timeout must not be negative",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l, err := kubelister.New([]byte(tc.kubeconfig), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, %v; want error containing %q", l, err, tc.want)
			}
			if strings.Contains(err.Error(), testToken[:7]) {
				t.Fatalf("error leaks the token: %v", err)
			}
		})
	}
}
