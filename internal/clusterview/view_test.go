package clusterview

import (
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

func TestEndpointHost(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://10.1.1.5:6443/":  "10.1.1.5",
		"https://[fd00::5]:6443/": "fd00::5",
		"https://10.1.1.5/":       "10.1.1.5",
		"":                        "",
	} {
		if got := EndpointHost(&cloudstack.Cluster{Endpoint: in}); got != want {
			t.Errorf("EndpointHost(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPortlessRuleBreaksScaleByVersion(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{
		"4.20.1.0": false, "4.21.0.0": true, "4.22.0.0": true, "4.22.0.1-SNAPSHOT": true,
		"4.22.1.0": false, "4.22.1.1": false, "4.23.0.0": false, "": true, "garbage": true,
	} {
		if got := PortlessRuleBreaksScale(v); got != want {
			t.Errorf("PortlessRuleBreaksScale(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestLacksCSIByVersion(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{
		"4.21.3.0": true, "4.22.0.0": false, "4.22.0.1-SNAPSHOT": false, "4.23.0.0": false, "": false, "garbage": false,
	} {
		if got := LacksCSI(v); got != want {
			t.Errorf("LacksCSI(%q) = %v, want %v", v, got, want)
		}
	}
}
