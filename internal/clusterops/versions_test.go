package clusterops

import (
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// Two usable versions with the same semantic version: the lookup names
// both instead of taking whichever the list shows first, in either order.
func TestPickVersionRefusesAnAmbiguousMatch(t *testing.T) {
	t.Parallel()
	a := cloudstack.KubernetesVersion{ID: "v-a", Name: "v1.33.1-a", SemanticVersion: "1.33.1", State: "Enabled", ISOState: "Ready"}
	b := cloudstack.KubernetesVersion{ID: "v-b", Name: "v1.33.1-b", SemanticVersion: "1.33.1", State: "Enabled", ISOState: "Ready"}
	for _, list := range [][]cloudstack.KubernetesVersion{{a, b}, {b, a}} {
		_, err := pickVersion(list, "1.33.1", "")
		if err == nil || !strings.Contains(err.Error(), "v1.33.1-a (1.33.1, v-a), v1.33.1-b (1.33.1, v-b)") {
			t.Fatalf("ambiguous semantic version: %v", err)
		}
		got, err := pickVersion(list, "", "v1.33.1-b")
		if err != nil || got.ID != "v-b" {
			t.Fatalf("by name: %+v, %v", got, err)
		}
	}
}
