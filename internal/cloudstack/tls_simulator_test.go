package cloudstack_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// The simulator's API served over TLS with a self-signed certificate: a
// verifying client is refused before any command reaches it; CAFile or
// Insecure make the same signed request succeed.
func TestTLSAgainstSelfSignedSimulator(t *testing.T) {
	t.Parallel()
	env := simtest.Start(t, simtest.WithTLS())
	client := func(mutate func(*cloudstack.Config)) *cloudstack.Client {
		cfg := cloudstack.Config{APIURL: env.Info.APIURL, APIKey: env.Info.APIKey, SecretKey: env.Info.SecretKey,
			RequestTimeout: 10 * time.Second,
			Retry:          cloudstack.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}}
		if mutate != nil {
			mutate(&cfg)
		}
		c, err := cloudstack.New(cfg)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		return c
	}

	_, err := client(nil).ListZones(t.Context())
	if err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Fatalf("verifying client: err = %v, want an unknown authority error", err)
	}
	if calls := env.Sim.CallCounts(); len(calls) != 0 {
		t.Fatalf("the simulator received %v despite the refused certificate", calls)
	}

	for name, mutate := range map[string]func(*cloudstack.Config){
		"CAFile":   func(c *cloudstack.Config) { c.CAFile = env.CAFile },
		"Insecure": func(c *cloudstack.Config) { c.Insecure = true },
	} {
		zones, err := client(mutate).ListZones(t.Context())
		if err != nil || len(zones) == 0 || zones[0].ID != env.Info.ZoneID {
			t.Errorf("%s: zones = %v, %v; want the simulator's zone %s", name, zones, err, env.Info.ZoneID)
		}
	}
	if n := env.Sim.CallCounts()["listZones"]; n != 2 {
		t.Errorf("the simulator answered listZones %d times, want 2", n)
	}
}
